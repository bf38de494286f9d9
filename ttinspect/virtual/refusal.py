"""What the virtual device says when it cannot answer: one line naming what was asked and the line of the
user's code that asked it, never a made-up answer."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ttinspect.errors import UsageError

# Frames inside these packages are the machinery between the user's line and the question (torch's own
# helpers, Triton's, ours, the import system): the line reported is the first frame outside them.
_MACHINERY = tuple(str(Path(p).resolve()) + os.sep for p in (Path(__file__).parent.parent,))
_MACHINERY_PACKAGES = ("torch", "triton")
# Every refusal made in this process, as said: `capture --as` sums up at exit those the program caught itself (a
# test runner catches each test's, and goes on to the next test's launches).
_made: list[str] = []


class VirtualDeviceError(UsageError):
    """A question the virtual device cannot answer (a stream, free memory, a tensor's values), or a number it
    does not know; carries where the user's code asked it."""

    def __init__(self, message: str, *, where: str | None = None):
        self.where = where
        super().__init__(f"{where or 'the code'} asks {message}")


def _machinery_dirs() -> tuple[str, ...]:
    dirs = list(_MACHINERY)
    for name in _MACHINERY_PACKAGES:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path:
            dirs.append(str(Path(path).resolve().parent) + os.sep)
    return tuple(dirs)


def user_line(also: tuple[str, ...] = ()) -> str | None:
    """`file:line` of the innermost frame of the user's code (or a library of theirs) on the stack; `also`:
    more files of machinery (the standard library's subprocess.py, between a program's start and its caller)."""
    machinery = _machinery_dirs()
    skipped = {str(Path(f).resolve()) for f in also}
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith("<frozen "):
            resolved = str(Path(filename).resolve()) if os.path.isabs(filename) else filename
            if not resolved.startswith(machinery) and resolved not in skipped:
                return f"{shown_path(filename)}:{frame.f_lineno}"
        frame = frame.f_back  # type: ignore[assignment]
    return None


def shown_path(filename: str) -> str:
    """A path as short as it stays clear: relative to the current directory when inside it (also how the
    capture names a launch's line and a kernel's line that failed in the interpreter)."""
    try:
        return os.path.relpath(filename) if not os.path.relpath(filename).startswith("..") else filename
    except ValueError:  # another drive (Windows)
        return filename


def refuse(asked: str, device: str, why: str = "cannot answer", also: tuple[str, ...] = ()) -> VirtualDeviceError:
    """The error for `asked` (e.g. "torch.cuda.mem_get_info()"), raised by the caller."""
    error = VirtualDeviceError(f"{asked}, which the virtual device ({device}) {why}", where=user_line(also))
    _made.append(str(error))
    return error


def answered_after_all(error: VirtualDeviceError) -> None:
    """A refusal the virtual device answered itself after all (a custom op's fake gave its outputs): the program
    did not catch it, so the closing line does not count it."""
    said = str(error)
    if said in _made:
        _made.remove(said)


def refusals_made() -> list[str]:
    """What the virtual device refused in this process so far, in order, as each refusal said it."""
    return list(_made)

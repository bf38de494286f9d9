"""An extension the program builds at run time for the GPU — `torch.utils.cpp_extension.load(...)` /
`load_inline(...)` with CUDA or HIP sources (flashrnn builds its CUDA backends and its device-properties
probe this way) — in a whole run (`capture --as`): the build is not attempted.

It could not be built here for the target (a laptop has no toolkit; where one is, torch asks the running
GPU's arch list, and the host's compiler ran and ended the program in its build log), nor run: its kernels
are not Triton's, so a capture has nothing to record of them. As for a compiled extension a laptop install
lacks (extension_stand_in.py), the call returns a stand-in module (stand_in_module.py): its names read,
any use of one is refused in one line naming the line that used it, and it is said once per calling line:
`ttinspect: note: an extension built at run time by torch.utils.cpp_extension.load at FILE:LINE (NAME) is
stood in: ...`.

Where the code around the call (the caller's own code — the library's, or the user's script — not a test
runner's) catches what a failed build raises (RuntimeError, OSError, ImportError, or wider), the build fails
as it would on a machine where it cannot be built, with the exception kind that handler catches: the
library takes its fallback (its Triton path). A build for the CPU (no CUDA/HIP sources, `with_cuda=False`)
runs as it would: it builds on this machine and runs on its CPU.

torch's toolkit paths are answered as on the target: toolkit_homes.py.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import sysconfig
import types
from pathlib import Path
from typing import Any, Callable

from ttinspect.files import after_import
from ttinspect.virtual import state, toolkit_homes
from ttinspect.virtual.caught_around import caught_at
from ttinspect.virtual.installed_files import distribution_of, within
from ttinspect.virtual.refusal import shown_path
from ttinspect.virtual.stand_in_module import stand_in

MODULE = "torch.utils.cpp_extension"
BUILDERS = ("load", "load_inline")
_DEVICE_SOURCES = (".cu", ".cuh", ".hip")
# What a failed build raises (torch: RuntimeError "Error building extension"; OSError for a toolkit not found;
# ImportError for a library that does not load), by the handlers' names that catch it, the build's first.
_FAILURES = ((RuntimeError, {"RuntimeError", "Exception", "BaseException"}),
             (OSError, {"OSError", "EnvironmentError", "IOError"}),
             (ImportError, {"ImportError"}))
_OURS = str(Path(__file__).resolve().parent.parent) + os.sep
_BASE = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}  # a venv's "stdlib" holds its site-packages
_STDLIB = tuple(str(Path(sysconfig.get_paths(vars=_BASE)[key]).resolve()) + os.sep for key in ("stdlib", "platstdlib"))
_SITE = tuple(str(Path(sysconfig.get_paths(vars=_BASE)[key]).resolve()) + os.sep for key in ("purelib", "platlib"))
_said: set[str] = set()


def _builds_for_device(builder: str, arguments: dict[str, Any]) -> bool:
    """Whether torch would build it with CUDA (or HIP): `with_cuda` when given, else by its sources, as torch
    decides (load: a .cu/.cuh source; load_inline: any cuda_sources)."""
    with_cuda = arguments.get("with_cuda")
    if with_cuda is not None:
        return bool(with_cuda)
    if builder == "load_inline":
        return bool(arguments.get("cuda_sources"))
    sources = arguments.get("sources") or ()
    sources = [sources] if isinstance(sources, (str, os.PathLike)) else sources
    return any(os.fspath(source).endswith(_DEVICE_SOURCES) for source in sources)


def _callers() -> list[tuple[str, int]]:
    """(file, line) of each frame outward from the line that called the builder: torch's frames, ours and the
    standard library's are the machinery between."""
    torch_dir = str(Path(sys.modules["torch"].__file__ or "").resolve().parent) + os.sep
    found: list[tuple[str, int]] = []
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        resolved = str(Path(name).resolve()) if os.path.isabs(name) else name
        standard = resolved.startswith(_STDLIB) and not resolved.startswith(_SITE)
        if not name.startswith("<frozen ") and not standard and not resolved.startswith((_OURS, torch_dir)):
            found.append((name, frame.f_lineno))
        frame = frame.f_back  # type: ignore[assignment]
    return found


def _origin(path: str) -> str | None:
    dist = distribution_of(path) if os.path.isabs(path) else None
    return None if dist is None else dist.metadata["Name"]


def _shown(path: str, line: int) -> str:
    dist = distribution_of(path) if os.path.isabs(path) else None
    return f"{within(dist, path) if dist is not None else shown_path(path)}:{line}"


def _failure_caught(callers: list[tuple[str, int]]) -> tuple[type[Exception], str] | None:
    """The kind of failure that the caller's own code catches around the call, and where: frames of the same
    origin as the call (its library, or the user's files) — a test runner's guard is no fallback of theirs."""
    origin = _origin(callers[0][0])
    for path, line in callers:
        if _origin(path) != origin or not os.path.isabs(path):
            continue
        caught = caught_at(path, line)
        for kind, names in _FAILURES:
            if caught & names:
                return kind, _shown(path, line)
    return None


def _say_once(site: str, line: str) -> None:
    if site not in _said:
        _said.add(site)
        print(line, file=sys.stderr)


def stand_in_for(builder: str, original: Callable[..., Any]) -> Callable[..., Any]:
    """`original` (cpp_extension's `builder`) as a whole run calls it."""
    signature = inspect.signature(original)

    @functools.wraps(original)
    def build(*args: Any, **kwargs: Any) -> Any:
        try:
            arguments = signature.bind(*args, **kwargs).arguments
        except TypeError:  # torch says what is wrong with the call, as it would
            return original(*args, **kwargs)
        callers = _callers()
        if not callers or not _builds_for_device(builder, arguments):
            return original(*args, **kwargs)
        name, site = str(arguments.get("name")), _shown(*callers[0])
        called = f"torch.utils.cpp_extension.{builder} at {site}"
        caught = _failure_caught(callers)
        if caught is not None:
            kind, where = caught
            _say_once(site, f"ttinspect: note: an extension built at run time by {called} ({name}) is not built "
                            f"under --as: the build fails there with {kind.__name__}, which {where} catches "
                            "(its fallback runs, as on a machine where the build fails)")
            raise kind(f"Error building extension '{name}': not built under capture --as (ttinspect builds "
                       f"nothing for the target; {called})")
        _say_once(site, f"ttinspect: note: an extension built at run time by {called} ({name}) is stood in: its "
                        "kernels are not Triton's and are not recorded; any use fails naming its line")
        return stand_in(name, f"an extension built at run time by {called}, not built under --as")
    return build


def _patch(cpp_extension: types.ModuleType) -> None:
    for builder in BUILDERS:
        original = getattr(cpp_extension, builder, None)
        if callable(original) and not getattr(original, "_ttinspect_stands_in", False):
            build = stand_in_for(builder, original)
            build._ttinspect_stands_in = True  # type: ignore[attr-defined]
            setattr(cpp_extension, builder, build)
    device = state.held()
    if device is not None:  # None only where cpp_extension was imported before the device was held
        toolkit_homes.answer(cpp_extension, device)


class _OnImport(after_import.AfterImport):
    """cpp_extension's builders and toolkit answers replaced the moment its import finishes (before the
    program's `from torch.utils.cpp_extension import load` takes the name)."""

    def wanted(self, fullname: str) -> bool:
        return fullname == MODULE

    def loaded(self, fullname: str, module: types.ModuleType) -> None:
        _patch(module)


def install() -> None:
    """In a whole run (once): cpp_extension as it is imported, or now if it already is."""
    if any(isinstance(finder, _OnImport) for finder in sys.meta_path):
        return
    sys.meta_path.insert(0, _OnImport())
    if MODULE in sys.modules:
        _patch(sys.modules[MODULE])

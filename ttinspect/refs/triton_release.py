"""Triton's own files in a capture: the release the run compiled with, not the user's sources.

A compile record's `sources` name every file of the @jit functions its kernel calls, and `tl.cdiv` or
`tl.sum` live in Triton's own package (triton/language/standard.py). On another machine the same release
sits under another prefix (another venv, another Python), and another build of one release (a wheel, a
source build, a distribution's patch) may differ in bytes: neither is a change to the user's code, and
the compile made here uses this machine's Triton whatever the run's was. So such files are compared as a
release — the header's Triton version against the installed one — and a difference is said in one line,
never refused; the user's own files are judged file by file as before (refs/captured_source.py).

Which recorded paths are Triton's: those inside the recording machine's triton package. Its folder is the
header's `triton_root` where the capture records it (checked as the reader checks every path: absolute and
normalized); a capture that does not (every capture written before it) is read by the layout — a path with
a folder named `triton` above it whose rest names a file of the installed triton package here
(`.../site-packages/triton/language/standard.py`). The kernel's own file is always the user's: it is the
file compiled.
"""

from __future__ import annotations

import importlib.util
import posixpath
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Iterable

from ttinspect.capture.file_bytes import CaptureError
from ttinspect.files.source_files import sha256_or_empty
from ttinspect.targets.releases import installed_version
from ttinspect.toolchains.worker_env import caller_release, in_toolchain

if TYPE_CHECKING:
    from ttinspect.capture.format import Capture, Compile

PACKAGE = "triton"  # the import name of the package whose files are the release
ROOT_FIELD = "triton_root"  # the header's field naming the recording machine's triton package folder


@lru_cache(maxsize=1)
def installed_root() -> Path | None:
    """The folder of the triton package this machine imports (found, not imported); None without one."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else None


def recorded_root(capture: Capture) -> str | None:
    """The recording machine's triton package folder, as the header says it; None when it does not. The
    capture is data from whoever sent it: a value that is no absolute normalized path is refused in one
    line, as the reader refuses any such path."""
    value = capture.header.extra.get(ROOT_FIELD)
    if value is None:
        return None
    if not isinstance(value, str) or not value.startswith("/") or posixpath.normpath(value) != value \
            or "\n" in value or len(value) > 4096:
        raise CaptureError(f"{capture.path}: the header's {ROOT_FIELD!r} is {str(value)[:80]!r}; expected an "
                           "absolute, normalized path (the triton package folder of the machine that recorded)")
    return value


def release_part(path: str, root: str | None) -> str | None:
    """Where `path` (a recorded path) lies inside the recording machine's triton package
    (`language/standard.py`), or None for a file of the user's. `root`: that package's folder as the header
    says it; None: told by the layout (a `triton` folder above it, the rest a file of the installed one)."""
    parts = PurePosixPath(path).parts
    if root is not None:
        top = PurePosixPath(root).parts
        return "/".join(parts[len(top):]) if parts[:len(top)] == top and len(parts) > len(top) else None
    here = installed_root()
    if here is None:
        return None
    for index in range(len(parts) - 2, 0, -1):  # the nearest `triton` folder first (a source tree nests two)
        if parts[index] == PACKAGE and here.joinpath(*parts[index + 1:]).is_file():
            return "/".join(parts[index + 1:])
    return None


def is_release_file(path: str, record: Compile, root: str | None) -> bool:
    return path != record.file and release_part(path, root) is not None


@lru_cache(maxsize=256)
def _installed_digest(part: str) -> str:
    """The sha256 of the installed triton package's file `part` ("" when it has none): a file of the
    release, never one a capture could point at elsewhere (`part` is a normalized relative path)."""
    here = installed_root()
    return sha256_or_empty(here.joinpath(*part.split("/"))) if here is not None else ""


@dataclass(frozen=True)
class ReleaseComparison:
    captured: str | None  # the header's Triton version
    installed: str | None  # the Triton this process compiles with (a toolchain's, under REF@triton=X)
    compared: int  # Triton's files the compiles were made of
    differing: tuple[str, ...]  # those whose bytes here differ from the run's (paths inside the package)
    toolchain: bool = False  # this process is the worker of a toolchain (REF@triton=X), not this machine's Triton
    machine: str | None = None  # under a toolchain: this machine's own installed Triton

    def _compiling(self) -> str:
        """The Triton the compiles here use, named for whose it is."""
        if not self.installed:
            return "no Triton installed"
        if not self.toolchain:
            return f"this machine's Triton {self.installed}"
        machine = f"this machine has Triton {self.machine}" if self.machine else "this machine has no Triton"
        return f"Triton {self.installed}, the toolchain REF@triton={self.installed} names ({machine})"

    def note(self) -> str | None:
        """One line when the release or its build differs from the run's; None when it is the same."""
        if self.compared == 0:
            return None
        whose = "the toolchain's" if self.toolchain else "this machine's"
        if self.captured != self.installed:
            then = f"Triton {self.captured}" if self.captured else "a Triton release it does not name"
            return (f"the run compiled with {then}; this compile uses {self._compiling()}: Triton's own files "
                    f"({self.compared}) are {whose} release, and its compiles may differ from the run's")
        if not self.differing:
            return None
        first = self.differing[0]
        more = f" and {len(self.differing) - 1} more" if len(self.differing) > 1 else ""
        here = f"Triton {self.installed} ({whose})" if self.toolchain else f"Triton {self.installed}"
        return (f"{here} here as in the run, but another build of it: {PACKAGE}/{first}{more} of its "
                f"{self.compared} file(s) the compiles used differ from the run's; Triton's own files are {whose}")


def compare(capture: Capture, records: Iterable[Compile] | None = None) -> ReleaseComparison:
    """The release the capture's compiles (`records`, all by default) were made with, against the one compiling
    here (this machine's, or under REF@triton=X the toolchain's)."""
    root = recorded_root(capture)
    recorded: dict[str, str] = {}  # path inside the package -> the run's sha256
    for record in capture.compiles if records is None else records:
        for path, digest in record.sources.items():
            part = release_part(path, root) if path != record.file else None
            if part is not None:
                recorded.setdefault(part, digest)
    differing = tuple(sorted(part for part, digest in recorded.items() if _installed_digest(part) != digest))
    return ReleaseComparison(capture.header.triton, installed_version(), len(recorded), differing,
                             toolchain=in_toolchain(), machine=caller_release())

"""A package whose `__init__.py` fails off the GPU machine (a serving engine that asks for the GPU, a harness
that needs its plugins) must not block its kernel file: the import is retried skipping only what failed.

- Only the `__init__.py` files the exception went through (they began and did not finish) become bare
  packages — their folders as `__path__`, nothing of them run again; a parent that was not reached runs its
  own `__init__.py` as usual, and is skipped in turn only if it fails too.
- Nothing the failed attempt imported successfully runs again: those modules stay (a type registered at
  their import is registered once, as in a fresh process), and are set on the bare parent as Python would.
- Each failure is said in one warning line naming its first exception and where it arose (file:line); when
  the kernel's module still fails after the skip, the error names that first cause before its own
  (`InitRetryFailed`).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
import traceback
import types
from pathlib import Path

from ttinspect.caches.store import warn
from ttinspect.refs.import_errors import first_line, said, where
from ttinspect.refs.packages import PackageModule


class InitRetryFailed(Exception):
    """The kernel's module failed after its packages' failing `__init__.py` were skipped: `first` is the
    cause (the failed `__init__`'s exception), `error` what the retry then raised."""

    def __init__(self, first: BaseException, first_where: str, skipped: list[str], error: BaseException):
        self.first, self.first_where, self.skipped, self.error = first, first_where, skipped, error
        super().__init__(f"{type(first).__name__}: {said(first)}")

    def line(self, path: Path, folders: list[str]) -> str:
        return (f"importing {path} raised {type(self.first).__name__}: {said(self.first)} ({self.first_where}); "
                f"loaded without running {', '.join(self.skipped)}, it then raised {type(self.error).__name__}: "
                f"{said(self.error)} ({where(self.error, folders)}; TTINSPECT_DEBUG=1 shows the whole traceback)")


class Skipped:
    """What the retry skipped: the first exception and the `__init__.py` files left unrun."""

    def __init__(self) -> None:
        self.first: BaseException | None = None
        self.first_where = ""
        self.inits: list[str] = []


def import_parents(package: PackageModule, dependencies_installable: bool) -> Skipped:
    """Import `package.module`'s parent packages, each failing `__init__.py` skipped (one warning per
    failure); returns what was skipped."""
    parents = package.module.split(".")[:-1]
    skipped = Skipped()
    for depth in range(1, len(parents) + 1):
        name = ".".join(parents[:depth])
        if name in sys.modules:  # imported by an earlier parent, or left bare after its failure
            continue
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as error:
            missing = error.name or ""
            if missing == package.top:  # the package itself is not here (another Triton's toolchain: installed there)
                raise
            if not missing.startswith(package.top + ".") and dependencies_installable:
                raise  # a dependency its __init__ imports: the toolchain installs it and runs again
            _skip(package, parents, depth, error, skipped)  # its own compiled extension (eng._C), or a plugin
        except Exception as error:  # the package's own __init__ needs what this machine lacks
            _skip(package, parents, depth, error, skipped)
    return skipped


def _init_of(package: PackageModule, parents: list[str], depth: int) -> Path:
    return package.root.joinpath(*parents[:depth]) / "__init__.py"


def _skip(package: PackageModule, parents: list[str], depth: int, error: BaseException, skipped: Skipped) -> None:
    """The `__init__.py` files `error` went through become bare packages; the modules that loaded stay."""
    ran = {os.path.realpath(frame.filename) for frame in traceback.extract_tb(error.__traceback__)}
    failed = [d for d in range(1, len(parents) + 1) if ".".join(parents[:d]) not in sys.modules
              and os.path.realpath(_init_of(package, parents, d)) in ran] or [depth]
    for d in range(1, max(failed) + 1):  # a parent of a failed one that never ran is bare too: nothing ran it
        if ".".join(parents[:d]) not in sys.modules:
            _make_bare(package, parents, d)
    inits = [str(_init_of(package, parents, d).relative_to(package.root)) for d in failed]
    place = where(error, [str(package.package_folder)])
    if skipped.first is None:
        skipped.first, skipped.first_where = error, place
    skipped.inits.extend(inits)
    warn(f"{inits[0]} raised {type(error).__name__}: {first_line(error)} ({place}); {package.module} is loaded "
         f"without running {', '.join(inits)} (the modules it imported stay; docs/real-kernels.md)")


def _make_bare(package: PackageModule, parents: list[str], depth: int) -> None:
    """One parent package as a bare module with its folder as `__path__` (its `__init__.py` not run), its
    submodules that did load set on it, and it set on its own parent."""
    name = ".".join(parents[:depth])
    folder = package.root.joinpath(*parents[:depth])
    spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
    # a captured copy's overlay, looked up only when a package's parents are made bare (a cold path)
    from ttinspect.refs.captured_source import overlaid_folders

    path = [str(folder), *overlaid_folders(folder / "__init__.py")]  # a captured copy: where the rest is
    spec.submodule_search_locations = path
    module = types.ModuleType(name)
    module.__spec__, module.__path__, module.__package__ = spec, path, name
    module.__file__ = str(folder / "__init__.py")
    sys.modules[name] = module
    for loaded, child in list(sys.modules.items()):
        if loaded.rpartition(".")[0] == name and child is not None:
            setattr(module, loaded.rpartition(".")[2], child)
    if depth > 1:
        setattr(sys.modules[".".join(parents[:depth - 1])], parents[depth - 1], module)

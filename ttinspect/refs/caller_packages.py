"""Under `REF@triton=X` the package a reference names is the caller's own, not the toolchain's install of it.

A toolchain gets the libraries the user's code imports installed "as this environment has them" (the same
release from the index: toolchains/packages.py), so its copy of `pkg` is the release's, not the user's: an edit
to the installed file here, or an editable checkout, would be silently ignored and another file compiled. So
the caller names the folder it finds the reference's package in (refs/other_triton.py: a module reference, or a
file path inside an installed package), and the worker imports that package from there (`use_caller_packages`,
called where a reference's module is first looked up, refs/packages.py: a finder ahead of sys.path for those
names only). What the package imports in turn (torch, its other dependencies) stays the toolchain's; Triton and
the packages ttinspect runs on are never taken from the caller.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

from ttinspect.toolchains.worker_env import caller_packages


class _CallerPackageFinder(importlib.abc.MetaPathFinder):
    """Finds the named top-level packages in the caller's folders; every other name falls through to sys.path."""

    def __init__(self, folders: dict[str, str]):
        self.folders = folders

    def find_spec(self, name, path=None, target=None):
        where = self.folders.get(name)
        if where is None:
            return None
        folder = Path(where)
        if folder.is_file():
            return importlib.util.spec_from_file_location(name, folder)
        init = folder / "__init__.py"
        if init.is_file():
            return importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(folder)])
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)  # a namespace package
        spec.submodule_search_locations = [str(folder)]
        return spec


def use_caller_packages() -> None:
    """In a toolchain's worker: the caller's packages are found first (once per process; nothing elsewhere)."""
    folders = caller_packages()  # the caller leaves out Triton and what ttinspect runs on (other_triton.py)
    if not folders or any(isinstance(finder, _CallerPackageFinder) for finder in sys.meta_path):
        return
    for name in folders:  # a copy the worker imported before the finder (none, normally) would stand in for it
        sys.modules.pop(name, None)
    sys.meta_path.insert(0, _CallerPackageFinder(folders))

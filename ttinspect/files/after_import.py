"""Acting on a module the moment its import finishes, without importing it: the capture's hooks reach into
Triton and torch this way (a captured process that never uses Triton pays nothing), and so does the virtual
device (torch patched as soon as the user's code imports it). Here because both layers need it and neither
may import the other's way of doing it."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from typing import Any


class AfterImport(importlib.abc.MetaPathFinder):
    """A finder first on sys.meta_path: for a module `wanted` says yes to, it lets the other finders find it
    and calls `loaded` once the module's own code has run; the module keeps the loader that found it."""

    def wanted(self, fullname: str) -> bool:
        raise NotImplementedError

    def loaded(self, fullname: str, module: types.ModuleType) -> None:
        raise NotImplementedError

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if not self.wanted(fullname):
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _ThenLoader(spec.loader, fullname, self)
        return spec


class _ThenLoader(importlib.abc.Loader):
    def __init__(self, loader: Any, fullname: str, finder: AfterImport):
        self.loader, self.fullname, self.finder = loader, fullname, finder

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self.loader.exec_module(module)
        module.__loader__ = self.loader  # as if this finder had never been there
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.finder.loaded(self.fullname, module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)

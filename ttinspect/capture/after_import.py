"""Patching a module the moment its import finishes: the capture's hooks reach into Triton and torch without
importing either (a captured process that never uses Triton pays nothing, and one that does is patched
before its own code runs)."""

from __future__ import annotations

import importlib.abc
import sys
import types
from typing import Any, Callable

from ttinspect.capture.hook_errors import guarded


class AfterImport(importlib.abc.MetaPathFinder):
    """First on sys.meta_path: lets the other finders find the modules named and runs the patch once the
    module's own code has run."""

    def __init__(self, waiting: dict[str, Callable[[types.ModuleType], None]], active: Callable[[], bool]):
        self.waiting, self.active = waiting, active

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        found = self.waiting.get(fullname)
        if found is None:
            return None
        patch: Callable[[types.ModuleType], None] = found
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        waiting, active = self.waiting, self.active

        class Then(importlib.abc.Loader):
            def create_module(self, spec: Any) -> Any:
                return loader.create_module(spec)

            def exec_module(self, module: types.ModuleType) -> None:
                loader.exec_module(module)
                module.__loader__ = loader  # as if this finder had never been there
                if module.__spec__ is not None:
                    module.__spec__.loader = loader
                if waiting.pop(fullname, None) is not None and active():
                    guarded(patch, module)

        spec.loader = Then()
        return spec

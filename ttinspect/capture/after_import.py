"""Patching a module the moment its import finishes: the capture's hooks reach into Triton and torch without
importing either (a captured process that never uses Triton pays nothing, and one that does is patched
before its own code runs)."""

from __future__ import annotations

import types
from typing import Callable

from ttinspect.capture.hook_errors import guarded
from ttinspect.files import after_import


class AfterImport(after_import.AfterImport):
    """Each module named in `waiting` patched once, after its own code has run, while `active()` (a capture
    session is open); a patch that fails is reported, never raised into the program (hook_errors.py)."""

    def __init__(self, waiting: dict[str, Callable[[types.ModuleType], None]], active: Callable[[], bool]):
        self.waiting, self.active = waiting, active

    def wanted(self, fullname: str) -> bool:
        return fullname in self.waiting

    def loaded(self, fullname: str, module: types.ModuleType) -> None:
        patch = self.waiting.pop(fullname, None)
        if patch is not None and self.active():
            guarded(patch, module)

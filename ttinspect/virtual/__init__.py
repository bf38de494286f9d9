"""The virtual device: while a user's file is imported and its launches planned, the code sees the target's
GPU (torch.cuda, torch.version, "cuda" tensors, Triton's driver, NVML / AMD SMI) — `virtual_device` in
device.py; for a whole process whose kernels are recorded and never run, `hold_for_process` in process.py.

    from ttinspect.virtual import hold_for_process, runs_nothing
    hold_for_process("sm_90", "num_sms=114")   # the rest of the process runs as that H100; nothing runs
    runs_nothing()                              # True from now on
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["hold_for_process", "runs_nothing"]
# Imported on first use: the warm path reads virtual/overrides.py (`--device-props`) and must not pay for
# the faces.
_HOMES = {"hold_for_process": "process", "runs_nothing": "process"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(import_module(f".{_HOMES[name]}", __name__), name)
    raise AttributeError(f"module 'ttinspect.virtual' has no attribute {name!r}")

"""Whether a GPU can be used here at all, told without importing torch or compiling anything.

The GPU commands (bench, profile, ladder, autotune) ask this first: importing torch takes seconds and their
work (compiles, the facts of every step) more, only to end in "needs a CUDA GPU" on a machine without one.
A machine without a GPU driver to load cannot have a GPU torch would use, so it is refused at once; where a
driver is, torch decides (gpu/bench.py's `require_gpu`), as before.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import sys

from ttinspect.errors import NoGPUError

NO_GPU = "needs a CUDA GPU; dump/report/diff work without one"
NO_TORCH = "needs a CUDA GPU and torch; dump/report/diff work without one"

# The user-space CUDA driver torch's CUDA runtime loads (the driver's own library, not the toolkit's), and the
# kernel driver's node that ROCm builds of torch (torch.cuda on AMD GPUs) open.
_CUDA_DRIVER = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"
_ROCM_NODE = "/dev/kfd"


def gpu_driver_present() -> bool:
    """A GPU driver is there to load (dlopen only: no device is opened or initialized, so forking stays safe)."""
    if os.path.exists(_ROCM_NODE):
        return True
    try:
        ctypes.CDLL(_CUDA_DRIVER)
    except OSError:
        return False
    return True


def refuse_without_gpu() -> None:
    """One line, exit 5, before any work: torch is not installed, or no GPU driver is there."""
    if importlib.util.find_spec("torch") is None:
        raise NoGPUError(NO_TORCH)
    if not gpu_driver_present():
        raise NoGPUError(NO_GPU)

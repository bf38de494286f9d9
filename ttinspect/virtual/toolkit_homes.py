"""Where torch.utils.cpp_extension says the GPU toolkit is, in a whole run (`capture --as`): as on a machine
of the target, not this one.

torch reads the toolkit at import — `CUDA_HOME` (nvcc on PATH, /usr/local/cuda), `ROCM_HOME` (hipcc,
/opt/rocm), `IS_HIP_EXTENSION` — from this machine: under `--as gfx942` here there is no ROCm, so
`include_paths(device_type="cuda")` raised "CUDA_HOME environment variable is not set" in a library's import
(flashrnn's `cuda_init`), where an MI300X answers ROCm's include directory. Nothing is built under `--as`
(runtime_extension.py stands in for the build), so these paths are only ever names of the target's toolkit,
never read from. They are answered for the target's vendor:
- its toolkit's home is what the user's environment says (`CUDA_HOME` / `CUDA_PATH`, `ROCM_HOME` /
  `ROCM_PATH`), else the place torch itself falls back to on a machine whose toolkit is installed where its
  installer puts it (`/usr/local/cuda`, `/opt/rocm`) — never this machine's nvcc or hipcc;
- the other vendor's home is None, as torch has it on the target's build (it looks for CUDA only in a CUDA
  build, for ROCm only in a ROCm one), and `IS_HIP_EXTENSION` says whether the target is AMD;
- `_find_cuda_home()` / `_find_rocm_home()`, which libraries call themselves, give the same answers.
"""

from __future__ import annotations

import os
import types
from typing import Any

from ttinspect.virtual.numbers import DeviceNumbers

# (its environment variables in torch's order of reading, the place torch falls back to) per vendor
_CUDA = (("CUDA_HOME", "CUDA_PATH"), "/usr/local/cuda")
_ROCM = (("ROCM_HOME", "ROCM_PATH"), "/opt/rocm")


def _home(variables: tuple[str, ...], default: str) -> str:
    return next((os.environ[name] for name in variables if os.environ.get(name)), default)


def homes_for(device: DeviceNumbers) -> dict[str, Any]:
    """cpp_extension's module names as a machine of `device`'s target answers them."""
    if device.amd:
        rocm = _home(*_ROCM)
        hip = device.values.get("hip_version")
        return {"CUDA_HOME": None, "ROCM_HOME": rocm, "HIP_HOME": os.path.join(rocm, "hip"),
                "IS_HIP_EXTENSION": True,
                "ROCM_VERSION": tuple(int(v) for v in str(hip).split(".")[:2]) if hip else None}
    return {"CUDA_HOME": _home(*_CUDA), "ROCM_HOME": None, "HIP_HOME": None, "IS_HIP_EXTENSION": False,
            "ROCM_VERSION": None}


def answer(cpp_extension: types.ModuleType, device: DeviceNumbers) -> None:
    """Set the module's names (torch's own functions read them as globals, so its `include_paths` and
    `library_paths` answer the target's too) and its finders' answers."""
    homes = homes_for(device)
    for name, value in homes.items():
        setattr(cpp_extension, name, value)
    for finder, home in (("_find_cuda_home", homes["CUDA_HOME"]), ("_find_rocm_home", homes["ROCM_HOME"])):
        if callable(getattr(cpp_extension, finder, None)):
            setattr(cpp_extension, finder, _answering(home))


def _answering(home: str | None) -> Any:
    def find() -> str | None:
        return home
    return find

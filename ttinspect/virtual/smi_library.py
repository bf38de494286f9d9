"""The vendors' management C libraries (NVIDIA's libnvidia-ml, AMD's libamd_smi) under the virtual device.

A binding that loads its C library when imported (AMD's `amdsmi` does, with `ctypes.CDLL`; device-smi loads
libnvidia-ml itself and calls its C functions) cannot be imported on a machine without the vendor's driver stack,
so a program that asks it "which GPUs are here?" fails before asking; where the library is installed, it would
describe this machine's GPU, not the target's. While a virtual device of that vendor is active, loading its
library gives a stand-in, installed or not: the binding imports whole (its enums, structs, exceptions), and the
stand-in's C functions answer at C level what the device knows, as the real library's would (smi_c_calls.py:
return codes, out-parameters); what it does not know returns the vendor's "not supported" code and is counted as a
refusal with the caller's line. The binding's own Python functions that the device can answer are replaced by
smi.py's answers. The other vendor's library stays absent, as on a real machine of the target. Nothing is imported
that the code did not import (ctypes is the standard library's).
"""

from __future__ import annotations

import ctypes
import os
from typing import Any, Callable

from ttinspect.virtual import state
from ttinspect.virtual.smi_c_calls import CLibraryCalls

Patch = Callable[[Any, str, Any], None]
# the library file each vendor's management API is in (NVML: libnvidia-ml.so.1, nvml.dll; AMD SMI)
_LIBRARIES = {"nvidia": ("libnvidia-ml", "nvml"), "amd": ("libamd_smi",)}


def vendor_of_library(name: Any) -> str | None:
    """"amd" for .../libamd_smi.so, "nvidia" for libnvidia-ml.so.1; None for any other library."""
    if not isinstance(name, (str, os.PathLike)):
        return None
    base = os.path.basename(os.fspath(name)).lower()
    stem = base.split(".")[0]
    return next((vendor for vendor, stems in _LIBRARIES.items() if stem in stems), None)


class _StandInFunction:
    """A C function of the stand-in: the binding sets its restype/argtypes (and maybe an errcheck, which a
    real foreign function calls with its result); calling it answers as smi_c_calls.py says."""

    def __init__(self, calls: CLibraryCalls, name: str):
        self.__name__ = name
        self.calls = calls
        self.errcheck: Any = None

    def __call__(self, *args: Any) -> Any:
        result = self.calls.call(self.__name__, args)
        return self.errcheck(result, self, args) if callable(self.errcheck) else result


class StandInLibrary:
    """What `ctypes.CDLL("libnvidia-ml.so.1")` gives under an NVIDIA virtual device (and `libamd_smi.so` under
    an AMD one); `calls` answers its C functions."""

    def __init__(self, name: str, calls: CLibraryCalls):
        self._name = name
        self._calls = calls
        self._functions: dict[str, _StandInFunction] = {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self[name]

    def __getitem__(self, name: str) -> Any:
        if name not in self._functions:
            self._functions[name] = _StandInFunction(self._calls, name)
        return self._functions[name]

    def __repr__(self) -> str:
        return f"<stand-in for {self._name} [virtual device]>"


def guard(patch: Patch) -> None:
    """`ctypes.CDLL` (and `ctypes.cdll.LoadLibrary`) give the stand-in for the target vendor's management library
    and fail to load the other vendor's, whatever this machine has installed: a real libnvidia-ml would
    describe this machine's GPU, not the target's."""
    real = ctypes.CDLL
    shared: dict[str, CLibraryCalls] = {}  # one state per vendor: every dlopen of a library shares its state

    class CDLL(real):  # type: ignore[misc, valid-type]
        def __new__(cls, name: Any, *args: Any, **kwargs: Any) -> Any:
            if cls is not CDLL:  # a subclass of the code's own: made as it would be
                return super().__new__(cls)
            vendor = vendor_of_library(name)
            if vendor is None:
                return real(name, *args, **kwargs)
            if vendor != ("amd" if state.active().amd else "nvidia"):
                raise OSError(f"{os.fspath(name)}: cannot open shared object file: No such file or directory")
            if vendor not in shared:
                shared[vendor] = CLibraryCalls(os.path.basename(os.fspath(name)), vendor)
            return StandInLibrary(os.fspath(name), shared[vendor])

    CDLL.__name__ = CDLL.__qualname__ = "CDLL"
    patch(ctypes, "CDLL", CDLL)
    patch(ctypes.cdll, "_dlltype", CDLL)

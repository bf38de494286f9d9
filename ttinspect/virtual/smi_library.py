"""The vendors' management C libraries (NVIDIA's libnvidia-ml, AMD's libamd_smi) under the virtual device.

A binding that loads its C library when imported (AMD's `amdsmi` does, with `ctypes.CDLL`) cannot be
imported on a machine without the vendor's driver stack, so a program that asks it "which GPUs are here?"
fails before asking. While a virtual device of that vendor is active, loading its library where it is
absent gives a stand-in: the binding imports whole (its enums, structs, exceptions), and every C function of
the stand-in refuses in one line when called — the binding's own functions that the device can answer are
replaced by smi.py's answers. The other vendor's library stays absent, as on a real machine of the target.
Nothing is imported that the code did not import (ctypes is the standard library's).
"""

from __future__ import annotations

import ctypes
import os
from typing import Any, Callable

from ttinspect.virtual import state
from ttinspect.virtual.refusal import refuse

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
    """A C function of the stand-in: the binding sets its restype/argtypes; calling it is refused."""

    def __init__(self, library: str, name: str):
        self.__name__ = name
        self.library = library

    def __call__(self, *args: Any) -> Any:
        raise refuse(f"{self.__name__}() of {self.library}", state.current().label,
                     "cannot answer (only the GPU machine's driver can; the binding's own functions that it can "
                     "answer are answered)")


class StandInLibrary:
    """What `ctypes.CDLL("libamd_smi.so")` gives under an AMD virtual device on a machine without ROCm."""

    def __init__(self, name: str):
        self._name = name
        self._functions: dict[str, _StandInFunction] = {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self[name]

    def __getitem__(self, name: str) -> Any:
        if name not in self._functions:
            self._functions[name] = _StandInFunction(os.path.basename(self._name), name)
        return self._functions[name]

    def __repr__(self) -> str:
        return f"<stand-in for {self._name} [virtual device]>"


def guard(patch: Patch) -> None:
    """`ctypes.CDLL` (and `ctypes.cdll.LoadLibrary`) give the stand-in for the active vendor's absent library."""
    real = ctypes.CDLL

    class CDLL(real):  # type: ignore[misc, valid-type]
        def __new__(cls, name: Any, *args: Any, **kwargs: Any) -> Any:
            if cls is not CDLL:  # a subclass of the code's own: made as it would be
                return super().__new__(cls)
            try:
                return real(name, *args, **kwargs)
            except OSError:
                vendor = vendor_of_library(name)
                if vendor is None or vendor != ("amd" if state.active().amd else "nvidia"):
                    raise
                return StandInLibrary(os.fspath(name))

    CDLL.__name__ = CDLL.__qualname__ = "CDLL"
    patch(ctypes, "CDLL", CDLL)
    patch(ctypes.cdll, "_dlltype", CDLL)

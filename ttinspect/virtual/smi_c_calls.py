"""The C functions of a stand-in management library (smi_library.py), called through ctypes by a library's own
binding: device-smi (which gptqmodel imports) loads libnvidia-ml.so.1 itself and calls `nvmlInit_v2()`,
`nvmlDeviceGetCount_v2(byref(c_uint))`, `nvmlDeviceGetHandleByIndex_v2(i, byref(handle))`,
`nvmlDeviceGetName(handle, buffer, length)`.

They follow NVML's C calling convention, as read from libnvidia-ml.so.1 on an H200 (driver 580): each returns an
`nvmlReturn_t` and writes its answers through the pointers it is given (`ctypes.byref`, `ctypes.pointer`, a
`create_string_buffer`, a bare address). What the device knows is answered — the same numbers NVML's Python
binding is answered with (smi.py): the count, a handle per GPU, its name, compute capability, index, whether it
is a multi-GPU board, and the maximum graphics / SM / memory clocks. A device call before `nvmlInit` returns
NVML_ERROR_UNINITIALIZED, a GPU index past the last or a NULL pointer NVML_ERROR_INVALID_ARGUMENT, a name
buffer too short NVML_ERROR_INSUFFICIENT_SIZE, as the real library does.

Every other function returns NVML_ERROR_NOT_SUPPORTED (AMD SMI's: AMDSMI_STATUS_NOT_SUPPORTED) and is counted
as a refusal naming the caller's line (`capture --as` says at exit what the program caught). Why a code and not
an exception: a real library that cannot answer returns a code — ctypes raises nothing — so a binding checks it
and falls back (device-smi to nvidia-smi, which is answered or refused in its turn); an exception raised from
the call would end a program that a real failing NVML lets go on. NOT_SUPPORTED is the code every binding treats
as "this GPU does not give that number" (pynvml's NVMLError_NotSupported; device-smi tries the next variant),
where NO_PERMISSION would send the user after permissions and FUNCTION_NOT_FOUND after an old driver.
"""

from __future__ import annotations

import ctypes
import re
from typing import Any, Callable

from ttinspect.virtual import smi, smi_answers, state
from ttinspect.virtual.refusal import VirtualDeviceError, refuse

NVML_SUCCESS = 0
NVML_ERROR_UNINITIALIZED = 1
NVML_ERROR_INVALID_ARGUMENT = 2
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_INSUFFICIENT_SIZE = 7
AMDSMI_STATUS_NOT_SUPPORTED = 2  # amdsmi.h's amdsmi_status_t
# nvmlErrorString's texts, read from libnvidia-ml.so.1 on an H200; any other code is "Unknown Error"
_NVML_ERROR_TEXT = {0: "Success", 1: "Uninitialized", 2: "Invalid Argument", 3: "Not Supported",
                    4: "Insufficient Permissions", 5: "Already Initialized", 6: "Not Found", 7: "Insufficient Size",
                    8: "Insufficient External Power", 9: "Driver Not Loaded", 10: "Timeout",
                    11: "Interrupt Request Issue", 12: "NVML Shared Library Not Found", 13: "Function Not Found",
                    14: "Corrupted infoROM", 15: "GPU is lost", 999: "Unknown Error"}
# an NVML function -> the nvidia-smi field it reads, whose reason for being unknown smi_answers.py gives
_AS_NVIDIA_SMI_FIELD = {"nvmlDeviceGetMemoryInfo": "memory.total", "nvmlDeviceGetMemoryInfo_v2": "memory.total",
                        "nvmlSystemGetDriverVersion": "driver_version", "nvmlDeviceGetUUID": "uuid",
                        "nvmlDeviceGetSerial": "serial", "nvmlDeviceGetPciInfo": "pci.bus_id",
                        "nvmlDeviceGetPciInfo_v2": "pci.bus_id", "nvmlDeviceGetPciInfo_v3": "pci.bus_id",
                        "nvmlDeviceGetTemperature": "temperature.gpu", "nvmlDeviceGetPowerUsage": "power.draw",
                        "nvmlDeviceGetUtilizationRates": "utilization.gpu", "nvmlDeviceGetClockInfo": "clocks.sm",
                        "nvmlDeviceGetVbiosVersion": "vbios_version"}
_CPARAM_ADDRESS = re.compile(r"\(0x([0-9a-fA-F]+)\)")


class NotAPointer(Exception):
    """An argument the stand-in cannot write through (a bytes object, a str): what it was."""


def address_of(arg: Any) -> int | None:
    """Where a pointer argument points, as ctypes would pass it; None for NULL."""
    if arg is None:
        return None
    if type(arg).__name__ == "CArgObject":  # ctypes.byref(x[, offset]): its repr shows the address passed
        found = _CPARAM_ADDRESS.search(repr(arg))
        return int(found.group(1), 16) if found else ctypes.addressof(arg._obj)
    if isinstance(arg, (ctypes.c_void_p, ctypes.c_char_p, ctypes._Pointer)):
        return ctypes.cast(arg, ctypes.c_void_p).value
    # an array, a struct, a c_uint given where a pointer is expected: ctypes passes it by reference
    if isinstance(arg, (ctypes.Array, ctypes.Structure, ctypes.Union, ctypes._SimpleCData)):
        return ctypes.addressof(arg)
    if isinstance(arg, int) and not isinstance(arg, bool):
        return arg or None
    raise NotAPointer(type(arg).__name__)


def number_of(arg: Any) -> int | None:
    """An integer argument (a GPU index, a clock type, a length): a Python int or a ctypes integer."""
    value = arg.value if isinstance(arg, ctypes._SimpleCData) else arg
    return value if isinstance(value, int) else None


class CLibraryCalls:
    """One stand-in library's C functions: `call(name, args)` returns what the C function would."""

    def __init__(self, library: str, vendor: str):
        self.library, self.vendor = library, vendor
        self._inits = 0  # NVML counts nvmlInit calls; each nvmlShutdown takes one back
        self._handles: list[ctypes.Array] = []  # one block per GPU: its address is that GPU's handle

    def call(self, name: str, args: tuple) -> Any:
        answer = _NVML_ANSWERS.get(name) if self.vendor == "nvidia" else None
        if answer is None:
            return self.unanswered(name, "cannot answer", _AS_NVIDIA_SMI_FIELD.get(name))
        try:
            return answer(self, *args)
        except TypeError:  # a call with the wrong number of arguments: the C function would read garbage
            return NVML_ERROR_INVALID_ARGUMENT
        except NotAPointer as what:
            raise ctypes.ArgumentError(f"{name}(): a {what} cannot be written through: pass "
                                       "ctypes.byref(...) or a ctypes.create_string_buffer") from None
        except VirtualDeviceError:  # a number the device table has no source for: already counted as refused
            return NVML_ERROR_NOT_SUPPORTED

    def unanswered(self, name: str, why: str, field: str | None = None) -> int:
        """The vendor's "not supported", counted as a refusal naming the caller's line (not raised)."""
        if field is not None:
            unknown = smi_answers.field_unknown(field)
            why = f"cannot answer (NVML's number is nvidia-smi's {field}: {unknown.why})"
        code, code_name = ((NVML_ERROR_NOT_SUPPORTED, "NVML_ERROR_NOT_SUPPORTED") if self.vendor == "nvidia"
                           else (AMDSMI_STATUS_NOT_SUPPORTED, "AMDSMI_STATUS_NOT_SUPPORTED"))
        refuse(f"{name}() of {self.library}", state.current().label, f"{why}; it returned {code_name} ({code})")
        return code

    # -- what NVML answers ------------------------------------------------------------------------------------
    def init(self, *flags: Any) -> int:
        state.current()
        self._inits += 1
        return NVML_SUCCESS

    def shutdown(self) -> int:
        if not self._inits:
            return NVML_ERROR_UNINITIALIZED
        self._inits -= 1
        return NVML_SUCCESS

    def error_string(self, code: Any) -> bytes:
        return _NVML_ERROR_TEXT.get(number_of(code), "Unknown Error").encode()  # type: ignore[arg-type]

    def _store(self, ctype: Any, pointer: Any, value: int) -> int:
        address = address_of(pointer)
        if address is None:
            return NVML_ERROR_INVALID_ARGUMENT
        ctype.from_address(address).value = value
        return NVML_SUCCESS

    def _count(self) -> int:
        return int(state.current().get("device_count", f"nvmlDeviceGetCount() of {self.library}"))

    def count(self, pointer: Any) -> int:
        if not self._inits:
            return NVML_ERROR_UNINITIALIZED
        return self._store(ctypes.c_uint, pointer, self._count())

    def handle_by_index(self, index: Any, pointer: Any) -> int:
        index = number_of(index)
        if not self._inits:
            return NVML_ERROR_UNINITIALIZED
        if index is None or not 0 <= index < self._count():
            return NVML_ERROR_INVALID_ARGUMENT
        while len(self._handles) <= index:
            self._handles.append(ctypes.create_string_buffer(8))
        return self._store(ctypes.c_void_p, pointer, ctypes.addressof(self._handles[index]))

    def _index(self, handle: Any) -> int | None:
        """The GPU a handle this library gave names; None for any other value (an invalid argument)."""
        try:
            value = address_of(handle)
        except NotAPointer:
            return None
        return next((i for i, block in enumerate(self._handles) if ctypes.addressof(block) == value), None)

    def _device(self, handle: Any) -> int:
        """NVML_SUCCESS when a device function may answer for `handle`, else its error."""
        if not self._inits:
            return NVML_ERROR_UNINITIALIZED
        return NVML_SUCCESS if self._index(handle) is not None else NVML_ERROR_INVALID_ARGUMENT

    def name(self, handle: Any, buffer: Any, length: Any) -> int:
        if (error := self._device(handle)) != NVML_SUCCESS:
            return error
        text = str(state.current().get("name", f"nvmlDeviceGetName() of {self.library}")).encode() + b"\0"
        address, room = address_of(buffer), number_of(length)
        if address is None or room is None:
            return NVML_ERROR_INVALID_ARGUMENT
        if room < len(text):
            return NVML_ERROR_INSUFFICIENT_SIZE
        ctypes.memmove(address, text, len(text))
        return NVML_SUCCESS

    def capability(self, handle: Any, major: Any, minor: Any) -> int:
        if (error := self._device(handle)) != NVML_SUCCESS:
            return error
        numbers = state.current().capability
        if address_of(major) is None or address_of(minor) is None:
            return NVML_ERROR_INVALID_ARGUMENT
        self._store(ctypes.c_int, major, numbers[0])
        return self._store(ctypes.c_int, minor, numbers[1])

    def index(self, handle: Any, pointer: Any) -> int:
        if (error := self._device(handle)) != NVML_SUCCESS:
            return error
        return self._store(ctypes.c_uint, pointer, self._index(handle) or 0)

    def multi_gpu_board(self, handle: Any, pointer: Any) -> int:
        if (error := self._device(handle)) != NVML_SUCCESS:
            return error
        asked = f"nvmlDeviceGetMultiGpuBoard() of {self.library}"
        return self._store(ctypes.c_uint, pointer, int(state.current().get("is_multi_gpu_board", asked)))

    def max_clock(self, handle: Any, clock_type: Any, pointer: Any) -> int:
        if (error := self._device(handle)) != NVML_SUCCESS:
            return error
        kind = number_of(clock_type)
        if kind is None or kind not in smi.NVML_CLOCK_TYPES:
            return NVML_ERROR_INVALID_ARGUMENT
        mhz = smi.max_clock_mhz(kind, f"nvmlDeviceGetMaxClockInfo({smi.NVML_CLOCK_TYPES[kind]}) of {self.library}")
        return self._store(ctypes.c_uint, pointer, mhz)


_NVML_ANSWERS: dict[str, Callable[..., Any]] = {
    "nvmlInit": CLibraryCalls.init, "nvmlInit_v2": CLibraryCalls.init, "nvmlInitWithFlags": CLibraryCalls.init,
    "nvmlShutdown": CLibraryCalls.shutdown, "nvmlErrorString": CLibraryCalls.error_string,
    "nvmlDeviceGetCount": CLibraryCalls.count, "nvmlDeviceGetCount_v2": CLibraryCalls.count,
    "nvmlDeviceGetHandleByIndex": CLibraryCalls.handle_by_index,
    "nvmlDeviceGetHandleByIndex_v2": CLibraryCalls.handle_by_index,
    "nvmlDeviceGetName": CLibraryCalls.name, "nvmlDeviceGetCudaComputeCapability": CLibraryCalls.capability,
    "nvmlDeviceGetIndex": CLibraryCalls.index, "nvmlDeviceGetMultiGpuBoard": CLibraryCalls.multi_gpu_board,
    "nvmlDeviceGetMaxClockInfo": CLibraryCalls.max_clock,
}

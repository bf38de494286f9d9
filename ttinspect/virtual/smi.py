"""Platform detection through the vendors' management libraries: NVML's Python bindings (`pynvml` from
nvidia-ml-py, and the copies libraries vendor under that name) and AMD SMI's (`amdsmi`). Serving engines choose
their platform this way, not through torch.cuda (`nvmlInit(); nvmlDeviceGetCount() > 0` → CUDA;
`amdsmi_init(); amdsmi_get_processor_handles()` → ROCm), so without an answer here their per-platform configs
are never taken.

A binding is recognised by the API it defines (NVML's `nvmlInit` and `nvmlDeviceGetCount`, AMD SMI's `amdsmi_init`
and `amdsmi_get_processor_handles`), in any module whose name carries the API's name, imported before the device
or after. Under an NVIDIA device NVML answers from the device's numbers and amdsmi finds no GPU; under an AMD
device the reverse (NVML's library is not found, as on a ROCm machine). The same answers are given at C level to a
library's own ctypes binding of NVML (smi_c_calls.py). Every other function of the API is refused in one line
naming the caller's line (memory in use, current clocks, topology, a UUID, a PCI bus id: what only the GPU
machine's driver knows).
"""

from __future__ import annotations

import types
from typing import Any, Callable

from ttinspect.virtual import state
from ttinspect.virtual.refusal import refuse

Patch = Callable[[Any, str, Any], None]
_NVML = ("nvmlInit", "nvmlDeviceGetCount")  # what makes a module an NVML binding
_AMDSMI = ("amdsmi_init", "amdsmi_get_processor_handles")  # and an AMD SMI binding
# NVML's helpers that read no device (an error code's text, struct conversions): left as they are
_NVML_HELPERS = ("nvmlErrorString", "nvmlStructToFriendlyObject", "nvmlFriendlyObjectToStruct")
_AMD_PCI_VENDOR = "0x1002"  # AMD's PCI vendor id: every AMD GPU's
# nvmlClockType_t; the maxima of graphics and SM clocks are cudaDeviceProp's clockRate, the memory's its
# memoryClockRate (as nvidia-smi's clocks.max.*: smi_answers.py); the video clock has no source here
NVML_CLOCK_TYPES = {0: "NVML_CLOCK_GRAPHICS", 1: "NVML_CLOCK_SM", 2: "NVML_CLOCK_MEM", 3: "NVML_CLOCK_VIDEO"}
_MAX_CLOCK_KEYS = {0: "clock_rate", 1: "clock_rate", 2: "memory_clock_rate"}


def binding_name(fullname: str) -> bool:
    """A module that may be a binding, by the API's name in its own (pynvml, py3nvml, a vendored .pynvml,
    amdsmi and its modules): looked into once imported, see `bindings_in`."""
    last = fullname.rpartition(".")[2].lower()
    return "nvml" in last or fullname.partition(".")[0] == "amdsmi" or last.startswith("amdsmi")


def _defines(module: types.ModuleType, names: tuple[str, ...]) -> bool:
    return all(callable(vars(module).get(name)) for name in names)


class Handle:
    """A device handle either API hands out: the index of one GPU of the virtual device."""

    def __init__(self, api: str, index: int):
        self.api, self.index = api, index

    def __repr__(self) -> str:
        return f"<{self.api} handle of GPU {self.index} [virtual device]>"


def _index_of(handle: Any, asked: str) -> int:
    if not isinstance(handle, Handle):
        raise refuse(asked, state.current().label, "cannot answer (not a handle the virtual device gave)")
    return handle.index


def max_clock_mhz(clock_type: int, asked: str) -> int:
    """nvmlDeviceGetMaxClockInfo's answer in MHz for a valid clock type; refused where the table has none."""
    numbers = state.current()
    if clock_type not in _MAX_CLOCK_KEYS:
        raise refuse(asked, numbers.label, "does not know (no source for it in ttinspect's device table)")
    return int(numbers.get(_MAX_CLOCK_KEYS[clock_type], asked)) // 1000


def _nvml_error(module: types.ModuleType, code_name: str, asked: str) -> BaseException:
    """The binding's own NVMLError for a code (NVMLError_LibraryNotFound, ...), as its C library would say."""
    error, code = getattr(module, "NVMLError", None), getattr(module, code_name, None)
    if isinstance(error, type) and code is not None:
        return error(code)
    return refuse(asked, state.current().label, f"cannot answer ({code_name})")


def nvml_answers(module: types.ModuleType) -> dict[str, Callable[..., Any]]:
    """NVML's functions the device answers (NVIDIA), or says are absent (AMD: no libnvidia-ml there)."""
    def init(*args: Any, **kwargs: Any) -> None:
        if state.current().amd:
            raise _nvml_error(module, "NVML_ERROR_LIBRARY_NOT_FOUND", "nvmlInit()")

    def shutdown() -> None:
        state.current()

    def count() -> int:
        numbers = state.current()
        if numbers.amd:
            raise _nvml_error(module, "NVML_ERROR_UNINITIALIZED", "nvmlDeviceGetCount()")
        return numbers.get("device_count", "nvmlDeviceGetCount()")

    def handle_by_index(index: int) -> Handle:
        if not 0 <= index < count():
            raise _nvml_error(module, "NVML_ERROR_INVALID_ARGUMENT", f"nvmlDeviceGetHandleByIndex({index!r})")
        return Handle("NVML", index)

    def name(handle: Any) -> str:
        _index_of(handle, "nvmlDeviceGetName()")
        return state.current().get("name", "nvmlDeviceGetName()")

    def capability(handle: Any) -> tuple[int, int]:
        _index_of(handle, "nvmlDeviceGetCudaComputeCapability()")
        return state.current().capability

    def index_of(handle: Any) -> int:
        return _index_of(handle, "nvmlDeviceGetIndex()")

    def multi_gpu_board(handle: Any) -> int:
        _index_of(handle, "nvmlDeviceGetMultiGpuBoard()")
        return state.current().get("is_multi_gpu_board", "nvmlDeviceGetMultiGpuBoard()")

    def max_clock(handle: Any, clock_type: int) -> int:
        asked = f"nvmlDeviceGetMaxClockInfo({NVML_CLOCK_TYPES.get(clock_type, clock_type)})"
        _index_of(handle, asked)
        if clock_type not in NVML_CLOCK_TYPES:
            raise _nvml_error(module, "NVML_ERROR_INVALID_ARGUMENT", asked)
        return max_clock_mhz(clock_type, asked)

    return {"nvmlInit": init, "nvmlInitWithFlags": init, "nvmlInit_v2": init, "nvmlShutdown": shutdown,
            "nvmlDeviceGetCount": count, "nvmlDeviceGetHandleByIndex": handle_by_index,
            "nvmlDeviceGetName": name, "nvmlDeviceGetCudaComputeCapability": capability,
            "nvmlDeviceGetIndex": index_of, "nvmlDeviceGetMultiGpuBoard": multi_gpu_board,
            "nvmlDeviceGetMaxClockInfo": max_clock}


class AsicInfo(dict):
    """amdsmi_get_gpu_asic_info(): the keys the device's numbers give; the others (device_id, rev_id, the
    serial, ...) are refused when read, not made up."""

    def __init__(self, known: dict[str, Any], unknown: tuple[str, ...]):
        super().__init__(known)
        self.unknown = unknown

    def __missing__(self, key: str) -> Any:
        if key in self.unknown:
            raise refuse(f"amdsmi_get_gpu_asic_info(...)[{key!r}]", state.current().label,
                         "does not know (no source for it in ttinspect's device table)")
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self or key in self.unknown else default


def amdsmi_answers(module: types.ModuleType) -> dict[str, Callable[..., Any]]:
    """AMD SMI's functions the device answers (AMD), or finds no GPU for (NVIDIA)."""
    def init(*args: Any, **kwargs: Any) -> None:
        state.current()

    def handles(*args: Any) -> list[Handle]:
        numbers = state.current()
        if not numbers.amd:
            return []  # an NVIDIA machine: the library finds no AMD GPU
        return [Handle("AMD SMI", i) for i in range(numbers.get("device_count", "amdsmi_get_processor_handles()"))]

    def asic_info(handle: Any) -> AsicInfo:
        _index_of(handle, "amdsmi_get_gpu_asic_info()")
        numbers = state.current()
        units = numbers.get("multi_processor_count", "amdsmi_get_gpu_asic_info()['num_of_compute_units']")
        family = numbers.target.amd.family if numbers.target.amd else ""
        known = {"market_name": numbers.get("name", "amdsmi_get_gpu_asic_info()['market_name']"),
                 "vendor_id": _AMD_PCI_VENDOR, "target_graphics_version": numbers.target.name,
                 # HIP counts RDNA's workgroup processors (two CUs each); AMD SMI counts CUs
                 "num_of_compute_units": units if family.startswith("CDNA") else 2 * units}
        return AsicInfo(known, ("vendor_name", "subvendor_id", "device_id", "rev_id", "asic_serial", "oam_id",
                                "subsystem_id"))

    return {"amdsmi_init": init, "amdsmi_shut_down": init, "amdsmi_get_processor_handles": handles,
            "amdsmi_get_gpu_asic_info": asic_info}


def _refusing(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise refuse(f"{name}()", state.current().label, "cannot answer (only the GPU machine's driver can)")
    refused.__name__ = refused.__qualname__ = name
    refused.__doc__ = getattr(original, "__doc__", None)
    return refused


def install_on(module: types.ModuleType, patch: Patch) -> bool:
    """Answer (and refuse) the API's functions on `module` when it is a binding; True when it was one."""
    if _defines(module, _NVML):
        prefix, answers = "nvml", nvml_answers(module)
    elif _defines(module, _AMDSMI):
        prefix, answers = "amdsmi_", amdsmi_answers(module)
    else:
        return False
    for name, value in list(vars(module).items()):
        if not name.startswith(prefix) or not isinstance(value, types.FunctionType) or name in _NVML_HELPERS:
            continue
        patch(module, name, answers[name] if name in answers else _refusing(name, value))
    return True

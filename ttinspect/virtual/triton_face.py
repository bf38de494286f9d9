"""Triton's face of the virtual device: a stand-in for `triton.runtime.driver.active` and its `utils`, answering
the device questions kernel files and Triton's own helpers ask (get_current_target, get_current_device,
get_device_capability, utils.get_device_properties, get_active_torch_device, get_device_interface) and
refusing the rest (streams, launches, binaries, benchmarking) in one line.

Every difference between Triton releases 3.3-3.9 in what the driver answers is here:
- `utils.get_device_properties(device)` keys: NVIDIA max_shared_mem (the opt-in maximum), max_num_regs,
  multiprocessor_count, warpSize, sm_clock_rate, mem_clock_rate, mem_bus_width in every release; AMD the
  same (max_shared_mem being the workgroup's LDS) plus arch (gcnArchName) and max_threads_per_sm, and
  cooperativeLaunch from 3.7 (third_party/*/backend/driver.c of each release).
- DriverConfig keeps the active driver in `active` (3.3) or `_active` (3.4 on); `set_active` sets either, and
  the whole object's state is restored as it was.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from ttinspect.virtual import state, streams
from ttinspect.virtual.refusal import refuse

_DRIVER = "triton.runtime.driver.active"


def triton_release() -> tuple[int, int]:
    version = getattr(sys.modules.get("triton"), "__version__", "0.0")
    major, _, rest = version.partition(".")
    minor = "".join(ch for ch in rest.split(".")[0] if ch.isdigit())
    return int(major or 0), int(minor or 0)


class PropertiesDict(dict):
    """utils.get_device_properties(): the keys the installed release's driver returns; a key whose number
    the device table has no source for is refused when read, not answered."""

    def __init__(self, known: dict[str, Any], unknown: dict[str, str], asked: str):
        super().__init__(known)
        self.unknown, self.asked = unknown, asked

    def __missing__(self, key: str) -> Any:
        if key in self.unknown:
            state.current().get(self.unknown[key], f"{self.asked}[{key!r}]")
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self or key in self.unknown else default


def device_properties(device: Any) -> PropertiesDict:
    numbers = state.current()
    keys = {"max_shared_mem": "shared_memory_per_block" if numbers.amd else "shared_memory_per_block_optin",
            "max_num_regs": "regs_per_multiprocessor", "multiprocessor_count": "multi_processor_count",
            "warpSize": "warp_size", "sm_clock_rate": "clock_rate", "mem_clock_rate": "memory_clock_rate",
            "mem_bus_width": "memory_bus_width"}
    if numbers.amd:
        keys["max_threads_per_sm"] = "max_threads_per_multi_processor"
        if triton_release() >= (3, 7):
            keys["cooperativeLaunch"] = "cooperative_launch"
    known = {key: numbers.values.get(name) for key, name in keys.items()}
    if numbers.amd:
        known["arch"] = numbers.arch_name
    unknown = {key: keys[key] for key, value in known.items() if value is None}
    return PropertiesDict({k: v for k, v in known.items() if v is not None}, unknown,
                          f"{_DRIVER}.utils.get_device_properties({device!r})")


class _Refuses:
    """Any attribute not answered is a question the virtual device refuses, named as the code asked it."""

    _prefix = _DRIVER

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise refuse(f"{self._prefix}.{name}", state.current().label)


class VirtualUtils(_Refuses):
    _prefix = f"{_DRIVER}.utils"

    def get_device_properties(self, device: Any = 0) -> PropertiesDict:
        checked_index(device)
        return device_properties(device)

    def get_current_device(self) -> int:
        state.current()  # a question the code asked: outputs name the device that answered it
        return state.selected()

    def set_current_device(self, device: Any) -> None:
        state.select(checked_index(device))

    def get_device_capability(self, device: Any = 0) -> tuple[int, int]:
        checked_index(device)
        return state.current().capability


def checked_index(device: Any) -> int:
    """A device index as the driver takes one (an int; a torch device's index)."""
    index = getattr(device, "index", device)
    index = state.selected() if index is None else index
    count = state.current().get("device_count", "torch.cuda.device_count()")
    if not isinstance(index, int) or not 0 <= index < count:
        raise ValueError(f"invalid device {device!r}: the virtual device has {count} GPU(s)")
    return index


class VirtualDriver(_Refuses):
    """What `triton.runtime.driver.active` is while a virtual device is."""

    def __init__(self) -> None:
        self.utils = VirtualUtils()

    @property
    def _obj(self) -> "VirtualDriver":
        """Triton's `driver.active` is a lazy proxy whose `_obj` is the driver itself (Inductor's generated
        files reach for it): here the virtual driver is both."""
        return self

    @staticmethod
    def is_active() -> bool:
        return True

    def get_current_target(self) -> Any:
        from triton.backends.compiler import GPUTarget  # triton is imported: this face exists only then

        numbers = state.current()
        target = numbers.target
        arch: int | str = target.name if numbers.amd else target.capability
        return GPUTarget("hip" if numbers.amd else "cuda", arch, target.warp_size)

    def get_current_device(self) -> int:
        state.current()  # a question the code asked: outputs name the device that answered it
        return state.selected()

    def set_current_device(self, device: Any) -> None:
        state.select(checked_index(device))

    def get_device_capability(self, device: Any = None) -> tuple[int, int]:
        checked_index(device)
        return state.current().capability

    def get_current_stream(self, device: Any = None) -> int:
        """The current stream's handle, where nothing runs (the whole-run mode: streams.py); refused else."""
        streams.only_when_nothing_runs(f"{_DRIVER}.get_current_stream")
        return streams.current(checked_index(device)).cuda_stream

    def get_active_torch_device(self) -> Any:
        import torch  # the code asked for a torch device: Triton's own driver imports torch here too

        return torch.device("cuda", state.selected())

    def get_device_interface(self) -> Any:
        import torch  # as Triton's own driver does; torch.cuda is the virtual device's face by now

        return torch.cuda

    def get_benchmarker(self) -> Callable[..., Any]:
        # @triton.autotune asks for it when it decorates (Triton 3.3): handing it out is fine, timing is not
        def benchmark(*args: Any, **kwargs: Any) -> Any:
            raise refuse("a benchmark (triton.testing.do_bench)", state.current().label, "cannot time")
        return benchmark

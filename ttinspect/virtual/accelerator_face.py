"""torch.accelerator's face of the virtual device: the device-generic API (`torch.accelerator.
current_accelerator()`, `is_available()`, `device_count()`, `current_device_index()`, streams, memory) that
libraries read at import to pick a backend (`current_accelerator().type`).

Every function of torch.accelerator asks torch._C's `_accelerator_*` entries (and torch's own code asks
`torch._C._get_accelerator()`); on a CPU build they say "no accelerator" (None, or the CPU). Under the virtual
device each answers as a CUDA build on the target would — the accelerator is `cuda` for NVIDIA and AMD alike
(torch's ROCm build calls its device cuda) — by the same answer torch.cuda's face gives:

- the accelerator, the selected index, selecting and exchanging it: answered;
- the streams, synchronize, empty_cache and the allocator's counters: as torch.cuda's (answered only when
  nothing runs, the counters only before the code allocates — nothing_runs.py);
- `get_device_capability` (the dtypes a torch build supports), free memory (the driver's measurement) and
  the allocator's settings: refused in one line.
Nothing here imports torch: installed on the torch the code imported (torch_face.install).
"""

from __future__ import annotations

from typing import Any, Callable

from ttinspect.virtual import private_entries, state, streams
from ttinspect.virtual.refusal import refuse

Patch = Callable[[Any, str, Any], None]


def _refused(name: str, why: str) -> Callable[..., Any]:
    def entry(*args: Any, **kwargs: Any) -> Any:
        raise refuse(f"torch._C.{name}()", state.current().label, why)
    entry.__name__ = entry.__qualname__ = name
    return entry


def entries(torch: Any) -> dict[str, Callable[..., Any]]:
    """torch._C's name -> its answer on the virtual device."""
    def accelerator(*args: Any, **kwargs: Any) -> Any:
        state.current()  # a question the code asked: outputs name the device that answered it
        return torch.device("cuda")

    cuda_entries = private_entries.entries()

    def stats(index: Any = None) -> dict:
        raise refuse("torch.accelerator.memory_stats()", state.current().label,
                     "cannot answer once the code has allocated on it (the counts follow CUDA's caching "
                     "allocator's blocks and segments, which it does not model)")

    found: dict[str, Callable[..., Any]] = {
        "_get_accelerator": accelerator, "_accelerator_getAccelerator": accelerator,
        "_accelerator_getDeviceIndex": cuda_entries["_cuda_getDevice"],
        "_accelerator_setDeviceIndex": cuda_entries["_cuda_setDevice"],
        "_accelerator_exchangeDevice": cuda_entries["_cuda_exchangeDevice"],
        "_accelerator_maybeExchangeDevice": cuda_entries["_cuda_maybeExchangeDevice"],
        "_accelerator_hooks_device_count": cuda_entries["_cuda_getDeviceCount"],
        "_accelerator_hooks_get_current_device": cuda_entries["_cuda_getDevice"],
        "_accelerator_hooks_set_current_device": cuda_entries["_cuda_setDevice"],
        "_accelerator_hooks_exchange_device": cuda_entries["_cuda_exchangeDevice"],
        "_accelerator_hooks_maybe_exchange_device": cuda_entries["_cuda_maybeExchangeDevice"],
        # before the code allocates, torch says the allocator is not initialised and every count is empty
        "_accelerator_isAllocatorInitialized": lambda: state.allocated(),
        "_accelerator_getDeviceStats": stats,
    }
    nothing_runs: dict[str, Callable[..., Any]] = {
        "_accelerator_getStream": lambda index: streams.current(index),
        "_accelerator_setStream": lambda stream: streams.set_current(stream),
        "_accelerator_synchronizeDevice": lambda index=None: None,
        "_accelerator_emptyCache": lambda: None,
        "_accelerator_emptyHostCache": lambda: None,
        "_accelerator_resetAccumulatedStats": lambda index=None: None,
        "_accelerator_resetPeakStats": lambda index=None: None,
    }
    # the same gate as torch._C's CUDA stream entries (a stream exists only where nothing runs)
    found.update({name: private_entries.when_nothing_runs(name, answer) for name, answer in nothing_runs.items()})
    found["_accelerator_getDeviceCapability"] = _refused(
        "_accelerator_getDeviceCapability",
        "cannot answer (the dtypes a torch build supports: the wheel installed on the GPU machine says)")
    found["_accelerator_getMemoryInfo"] = _refused(
        "_accelerator_getMemoryInfo", "cannot answer (free memory is the driver's measurement)")
    for name in ("_accelerator_getAllocatorSettings", "_accelerator_setAllocatorSettings"):
        found[name] = _refused(name, "cannot answer (CUDA's caching allocator is not modelled)")
    return found


def install(torch: Any, patch: Patch) -> None:
    """Each entry on torch._C, where the installed torch has it (an older torch lacks some)."""
    for name, entry in entries(torch).items():
        if hasattr(torch._C, name):
            patch(torch._C, name, entry)

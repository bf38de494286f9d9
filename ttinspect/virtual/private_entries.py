"""torch._C's private CUDA entries that libraries import by name: `from torch._C import
_cuda_getCurrentRawStream as get_raw_stream` is the first line of every file Inductor generates and of many
libraries' launchers (Triton's own driver falls back without it). A CPU build of torch has none of them, so
the import itself fails; a CUDA build has them all. Under the virtual device they exist, and each answers as
torch.cuda's public face does for the same question:

- `_cuda_getDeviceCount`, `_cuda_getDevice`, `_cuda_setDevice`, `_cuda_exchangeDevice`,
  `_cuda_maybeExchangeDevice`, `_cuda_isInBadFork` (False: the process did not fork after initialising),
  `_cuda_init`: answered;
- the streams (`_cuda_getCurrentRawStream(device)`: the current stream's handle, `_cuda_getCurrentStream`,
  `_cuda_getDefaultStream`: torch's (id, device index, device type) triple, `_cuda_setStream`),
  `_cuda_synchronize`, `_cuda_emptyCache`: answered only when no kernel runs (the whole-run mode), refused
  inside an ordinary block — importing them always works;
- `_cuda_getArchFlags`, `_cuda_getCompiledVersion` (facts of a torch build, not of the GPU): refused;
- `_cuda_CUDAAllocator_AllocatorState` (a type Inductor's CUDA-graph trees only name, imported with
  `_set_cached_tensors_enabled` when torch says it is built for CUDA: `torch._dynamo.reset()` does): an empty type.
Nothing here imports torch: installed on the torch the code imported.
"""

from __future__ import annotations

from typing import Any, Callable

from ttinspect.virtual import state, streams
from ttinspect.virtual.indices import device_index
from ttinspect.virtual.refusal import refuse

Patch = Callable[[Any, str, Any], None]
_CUDA_DEVICE_TYPE = 1  # torch's DeviceType::CUDA, the third of a stream's (id, index, type)


def _device_count() -> int:
    return state.current().get("device_count", "torch._C._cuda_getDeviceCount()")


def _get_device() -> int:
    state.current()  # a question the code asked
    state.initialize()
    return state.selected()


def _set_device(device: int) -> None:
    state.select(device_index(device, f"torch._C._cuda_setDevice({device!r})"))
    state.initialize()


def _exchange_device(device: int) -> int:
    if device < 0:
        return -1
    previous = state.selected()
    _set_device(device)
    return previous


def _in_bad_fork() -> bool:
    state.current()
    return False


def _init() -> None:
    state.initialize()


def _triple(stream: streams.VirtualStream) -> tuple[int, int, int]:
    return stream.cuda_stream, stream.device_index, _CUDA_DEVICE_TYPE


def when_nothing_runs(name: str, answer: Callable[..., Any]) -> Callable[..., Any]:
    """torch._C's entry `name`: `answer` in a process where nothing runs, refused in a block (a stream)."""
    def entry(*args: Any, **kwargs: Any) -> Any:
        if not state.nothing_launches():
            raise refuse(f"torch._C.{name}()", state.current().label,
                         "cannot answer (a stream: only a process whose kernels never run has one here)")
        state.initialize()
        return answer(*args, **kwargs)
    entry.__name__ = entry.__qualname__ = name
    return entry


def _refused(name: str, why: str) -> Callable[..., Any]:
    def entry(*args: Any, **kwargs: Any) -> Any:
        raise refuse(f"torch._C.{name}()", state.current().label, why)
    entry.__name__ = entry.__qualname__ = name
    return entry


def entries() -> dict[str, Callable[..., Any]]:
    found: dict[str, Callable[..., Any]] = {
        "_cuda_getDeviceCount": _device_count, "_cuda_getDevice": _get_device, "_cuda_setDevice": _set_device,
        "_cuda_exchangeDevice": _exchange_device, "_cuda_maybeExchangeDevice": _exchange_device,
        "_cuda_isInBadFork": _in_bad_fork, "_cuda_init": _init,
    }
    answered_when_nothing_runs: dict[str, Callable[..., Any]] = {
        "_cuda_getCurrentRawStream": lambda device: streams.current(device).cuda_stream,
        "_cuda_getCurrentStream": lambda device: _triple(streams.current(device)),
        "_cuda_getDefaultStream": lambda device: _triple(streams.default(device)),
        "_cuda_setStream": lambda stream_id=0, device_index=None, device_type=_CUDA_DEVICE_TYPE:
            streams.set_current(streams.by_handle(stream_id, device_index)),
        "_cuda_synchronize": lambda: None,
        "_cuda_emptyCache": lambda: None,
    }
    found.update({name: when_nothing_runs(name, answer) for name, answer in answered_when_nothing_runs.items()})
    # torch._inductor.cudagraph_trees imports these two when torch.backends.cuda.is_built() (it is, for the
    # target): a type it only names, and a switch of cached tensors for CUDA graphs, which never replay here
    found["_cuda_CUDAAllocator_AllocatorState"] = type("_cuda_CUDAAllocator_AllocatorState", (), {})
    build = "cannot answer (a fact of the torch build, not of the GPU: the wheel installed on the GPU machine says)"
    found.update({name: _refused(name, build) for name in ("_cuda_getArchFlags", "_cuda_getCompiledVersion")})
    return found


def install(torch_c: Any, patch: Patch) -> None:
    """Each entry on torch._C, where it is missing or is the CUDA build's own (which would ask a real GPU)."""
    for name, entry in entries().items():
        patch(torch_c, name, entry)
    if not hasattr(torch_c, "_set_cached_tensors_enabled"):  # a CPU build has it; cudagraph_trees imports it
        patch(torch_c, "_set_cached_tensors_enabled", lambda enabled: None)

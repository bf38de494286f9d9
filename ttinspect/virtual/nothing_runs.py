"""torch.cuda's answers in a process where no kernel runs (the whole-run mode: process.py). Each is refused, as
before, inside an ordinary `virtual_device` block (a kernel file imported for a report must not lean on a
stream it would never have): `answered_when_nothing_runs` wraps it so.

- synchronize, ipc_collect, empty_cache, the stream questions (current_stream, default_stream, set_stream,
  `with torch.cuda.stream(s):`), Stream and Event (streams.py): no work is ever pending, so all of it is done;
- the caching allocator's counters (memory_allocated, max_memory_allocated, memory_reserved, ...): 0 while the
  code has put nothing on the device — after that they depend on the allocator's block sizes and segments,
  which the virtual device does not model, and are refused; resetting them (reset_peak_memory_stats, ...) passes;
- mem_get_info (in a whole run only: `capture --as`): (free, total) as the target answers a program alone on it
  before the program's own tensors — total less the CUDA context (CONTEXT_BYTES) — said once on stderr: free
  memory is the driver's measurement, so a guard (`skipif(free < 80 GiB)`, a size picked from what is free)
  takes the branch a fresh GPU gives. The program's own tensors are not taken off (the caching allocator's
  segments are not modelled);
- get_rng_state(_all) / set_rng_state(_all): a state of 16 zero bytes, and putting one back passes — what
  `torch.random.fork_rng` (opcheck, tests) does around a block; no kernel draws from the generator here.

Still refused with the line: Event.elapsed_time (a measured time), graphs, get_arch_list (a fact of a
torch build), and every answer inside a `virtual_device` block (a kernel file imported for a report).
"""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable

from ttinspect.virtual import state, streams
from ttinspect.virtual.refusal import refuse

_COUNTERS = ("memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
             "memory_cached", "max_memory_cached")
_RESETS = ("reset_peak_memory_stats", "reset_max_memory_allocated", "reset_max_memory_cached",
           "reset_accumulated_memory_stats")


def _done(*args: Any, **kwargs: Any) -> None:
    state.initialize()  # torch initialises CUDA for each of these
    return None


def _counter(name: str) -> Callable[..., int]:
    def counter(device: Any = None) -> int:
        if state.allocated():
            raise refuse(f"torch.cuda.{name}()", state.current().label,
                         "cannot answer once the code has allocated on it (the count follows CUDA's caching "
                         "allocator's blocks and segments, which it does not model)")
        return 0
    return counter


# What a CUDA context holds on a fresh GPU before the program allocates (measured: ~500 MiB on an H100 under
# CUDA 12, torch's own kernels loaded lazily); free memory below total by this much is what a guard sees.
CONTEXT_BYTES = 512 * 1024 * 1024
_SAID: list[bool] = [False]


def _mem_get_info(device: Any = None) -> tuple[int, int]:
    numbers = state.current()
    total = numbers.values.get("total_memory")
    if not state.runs_nothing():  # a report's import of one file: no program whose branch it would steer
        raise refuse("torch.cuda.mem_get_info()", numbers.label)
    state.initialize()  # torch initialises CUDA to ask
    if not isinstance(total, int):
        raise refuse("torch.cuda.mem_get_info()", numbers.label, "cannot answer (its memory size is not known)")
    free = max(0, total - CONTEXT_BYTES)
    if not _SAID[0]:
        _SAID[0] = True
        print(f"ttinspect: note: torch.cuda.mem_get_info() answered as {numbers.label} alone with this program: "
              f"{free / 2**30:.1f} GiB free of {total / 2**30:.1f} (total less {CONTEXT_BYTES >> 20} MiB of CUDA "
              f"context; the program's own tensors are not taken off)", file=sys.stderr)
    return free, total


def _rng_state(device: Any = None) -> Any:
    """The generator's state as torch gives it (16 bytes: Philox's seed and offset) — kept and put back around a
    block (`torch.random.fork_rng`, opcheck): no kernel draws from it here, so any state is the state."""
    import torch  # only called from torch.cuda, so torch is imported already

    state.initialize()
    return torch.zeros(16, dtype=torch.uint8, device="cpu")  # a CPU tensor, as torch gives it (even under a
    # `with torch.device("cuda"):` block)


def _rng_states() -> list[Any]:
    return [_rng_state(index) for index in range(max(1, state.current().values.get("device_count") or 1))]


def _current_stream(device: Any = None) -> streams.VirtualStream:
    return streams.current(device)


def _default_stream(device: Any = None) -> streams.VirtualStream:
    return streams.default(device)


def _set_stream(stream: streams.VirtualStream) -> None:
    if stream is not None:
        streams.set_current(stream)


def _stream(stream: streams.VirtualStream | None) -> streams.StreamContext:
    return streams.StreamContext(stream)


def answers() -> dict[str, Callable[..., Any]]:
    """torch.cuda's name -> its answer when nothing runs (functions; the classes are in `classes`)."""
    found: dict[str, Callable[..., Any]] = {
        "synchronize": _done, "ipc_collect": _done, "empty_cache": _done,
        "current_stream": _current_stream, "default_stream": _default_stream, "set_stream": _set_stream,
        "stream": _stream, "mem_get_info": _mem_get_info,
        "get_rng_state": _rng_state, "get_rng_state_all": _rng_states, "set_rng_state": _done,
        "set_rng_state_all": _done,
    }
    found.update({name: _counter(name) for name in _COUNTERS})
    found.update({name: _done for name in _RESETS})
    return found


def classes() -> dict[str, type]:
    """torch.cuda's classes -> theirs (each refuses to be made outside the whole-run mode: streams.py)."""
    return {"Stream": streams.VirtualStream, "Event": streams.VirtualEvent, "StreamContext": streams.StreamContext}


def answered_when_nothing_runs(qualname: str, answer: Callable[..., Any], original: Any) -> Callable[..., Any]:
    """`answer` in the whole-run mode; the refusal a `virtual_device` block gives otherwise."""
    @functools.wraps(original)
    def face(*args: Any, **kwargs: Any) -> Any:
        if not state.nothing_launches():
            raise refuse(f"{qualname}()", state.current().label)
        return answer(*args, **kwargs)
    return face


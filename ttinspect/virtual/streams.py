"""Streams and events of a process whose kernels are recorded, never run (the whole-run mode: process.py).

With nothing running, a stream orders nothing and an event marks nothing, so what host code asks of them has
a true answer: work is always finished (`query()` is True, `synchronize()` returns), waiting returns, the
current stream is the default one until the code enters another. A stream's `cuda_stream` handle is opaque:
the default stream's is 0 (CUDA's legacy default stream is the null handle), every other stream gets a
distinct number of its own, as a pointer would be. What only a run can tell — `Event.elapsed_time`, a
measured duration — is refused in one line. Nothing here imports torch: a stream's `device` is made by the
torch the code imported, given when the faces are installed.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any, Callable

from ttinspect.virtual import state
from ttinspect.virtual.indices import device_index
from ttinspect.virtual.refusal import refuse

_HANDLES = itertools.count(0x7F00_0000_1000, 0x10)  # opaque, distinct, never 0 (the default stream's)
_CURRENT: dict[int, "VirtualStream"] = {}  # device index -> the stream entered with torch.cuda.stream()
_DEFAULT: dict[int, "VirtualStream"] = {}
_MADE: "weakref.WeakValueDictionary[tuple[int, int], VirtualStream]" = weakref.WeakValueDictionary()
_make_device: list[Callable[[int], Any]] = [lambda index: f"cuda:{index}"]


def use_torch(torch: Any) -> None:
    """Streams' `device` as the code's torch makes one; called when the faces are installed on torch."""
    _make_device[0] = lambda index: torch.device("cuda", index)


def reset() -> None:
    """A fresh process: every device on its default stream."""
    _CURRENT.clear()
    _DEFAULT.clear()


class VirtualStream:
    """`torch.cuda.Stream` when nothing runs: ordered work that is always complete."""

    device_index: int
    priority: int
    cuda_stream: int

    def __new__(cls, device: Any = None, priority: int = 0, *, handle: int | None = None, **kwargs: Any):
        only_when_nothing_runs("torch.cuda.Stream()")
        made = object.__new__(cls)
        made.device_index = device_index(device, f"torch.cuda.Stream({device!r})")
        made.priority = priority
        made.cuda_stream = next(_HANDLES) if handle is None else handle
        state.initialize()  # torch initialises CUDA to make a stream
        _MADE[made.cuda_stream, made.device_index] = made
        return made

    @property
    def device(self) -> Any:
        return _make_device[0](self.device_index)

    @property
    def device_type(self) -> int:
        return 1  # torch's DeviceType::CUDA

    @property
    def stream_id(self) -> int:
        return self.cuda_stream

    def query(self) -> bool:
        return True  # nothing was ever queued on it

    def is_capturing(self) -> bool:
        return False  # no CUDA graph is captured where nothing runs (torch.optim asks it before each step)

    def synchronize(self) -> None:
        return None

    def wait_event(self, event: "VirtualEvent") -> None:
        return None

    def wait_stream(self, stream: "VirtualStream") -> None:
        return None

    def record_event(self, event: "VirtualEvent | None" = None) -> "VirtualEvent":
        event = VirtualEvent() if event is None else event
        event.record(self)
        return event

    def __enter__(self) -> "VirtualStream":
        self._context = StreamContext(self)
        self._context.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._context.__exit__(*exc)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, VirtualStream) and (other.cuda_stream, other.device_index) == \
            (self.cuda_stream, self.device_index)

    def __hash__(self) -> int:
        return hash((self.cuda_stream, self.device_index))

    def __repr__(self) -> str:
        return f"<torch.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.cuda_stream:#x}> [virtual device]"


class VirtualEvent:
    """`torch.cuda.Event` when nothing runs: recorded and complete at once; its timing is a measured value."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False,
                 **kwargs: Any):
        only_when_nothing_runs("torch.cuda.Event()")
        self.enable_timing, self.blocking, self.interprocess = enable_timing, blocking, interprocess
        self.recorded_on: VirtualStream | None = None

    def record(self, stream: VirtualStream | None = None) -> None:
        self.recorded_on = current(None) if stream is None else stream

    def wait(self, stream: VirtualStream | None = None) -> None:
        return None

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def elapsed_time(self, end_event: "VirtualEvent") -> float:
        raise refuse("torch.cuda.Event.elapsed_time()", state.current().label,
                     "cannot answer (a measured time: no kernel runs in this process)")

    def ipc_handle(self) -> Any:
        raise refuse("torch.cuda.Event.ipc_handle()", state.current().label, "cannot answer (it names a real event)")

    def __repr__(self) -> str:
        return "<torch.cuda.Event> [virtual device]"


def only_when_nothing_runs(asked: str) -> None:
    """Inside an ordinary `virtual_device` block (a kernel file imported for a report) a stream is refused:
    only a process whose kernels never run has a true answer for it."""
    if not state.nothing_launches():
        raise refuse(asked, state.current().label)


def default(device: Any) -> VirtualStream:
    index = device_index(device, f"torch.cuda.default_stream({device!r})")
    if index not in _DEFAULT:
        _DEFAULT[index] = VirtualStream(index, handle=0)
    return _DEFAULT[index]


def current(device: Any) -> VirtualStream:
    index = device_index(device, f"torch.cuda.current_stream({device!r})")
    return _CURRENT.get(index) or default(index)


def by_handle(handle: int, device: Any) -> VirtualStream:
    """The stream `handle` names on `device` (torch._C._cuda_setStream's arguments)."""
    index = device_index(device, f"torch._C._cuda_setStream({handle!r}, {device!r})")
    if handle == 0:
        return default(index)
    found = _MADE.get((handle, index))
    if found is None:
        raise refuse(f"torch._C._cuda_setStream({handle!r}, {device!r})", state.current().label,
                     "cannot answer (no stream of that handle was made in this process)")
    return found


def set_current(stream: VirtualStream) -> None:
    _CURRENT[stream.device_index] = stream


class StreamContext:
    """`with torch.cuda.stream(s):` — `s` is current on its device inside, as the stream before it after."""

    def __init__(self, stream: VirtualStream | None):
        only_when_nothing_runs("torch.cuda.StreamContext()")
        self.stream = stream
        self.before: VirtualStream | None = None

    def __enter__(self) -> VirtualStream | None:
        if self.stream is not None:
            self.before = current(self.stream.device_index)
            set_current(self.stream)
        return self.stream

    def __exit__(self, *exc: Any) -> None:
        if self.stream is not None and self.before is not None:
            set_current(self.before)

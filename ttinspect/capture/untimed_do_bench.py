"""`triton.testing.do_bench` (and `do_bench_cudagraph`) where no GPU runs the kernels (`capture --as`, in every
mode, and Triton's interpreter): a library's own autotuner (a GPTQ-style tuner, vLLM's) times its configs with
it, and Triton's would ask the GPU driver for an event timer and an L2 flush buffer there.

As for Triton's own Autotuner (interpreter.py `untimed_bench`), each call is made once — `fn()`, so the
launches it makes are recorded as the GPU would make them (and, under --run-kernels, run in the interpreter) —
and its time is unknown: NaN, in the shape do_bench returns (one per quantile asked, a list for
`return_mode="all"`). NaN compares false with everything, so a tuner's `min(timings, key=...)` or `sorted`
keeps its first config, and no time is made up. Said once, in one line naming the first call's file:line.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any, Callable

from ttinspect.capture import launches

NOT_TIMED = float("nan")
_said: list[str] = []  # the note, once it is printed


def untimed(original: Callable[..., Any], current: Callable[[], Any], why: str) -> Callable[..., Any]:
    """The replacement for a do_bench-shaped function (`fn` first, then Triton's keywords); `why`: where the
    run is, for the note ("under --as sm_90")."""
    def do_bench(fn: Callable[[], Any], *args: Any, **kwargs: Any) -> Any:
        try:  # quantiles and return_mode may come by position: read as this release's do_bench reads them
            asked = inspect.signature(original).bind(fn, *args, **kwargs)
        except (TypeError, ValueError):  # arguments it refuses: its own error, as on the GPU
            asked = None
        if current() is None or asked is None:
            return original(fn, *args, **kwargs)
        _say_once(getattr(original, "__name__", "do_bench"), sys._getframe(1), why)
        fn()
        asked.apply_defaults()
        return not_timed(asked.arguments.get("quantiles"), asked.arguments.get("return_mode", "mean"))
    do_bench.__wrapped__ = original  # type: ignore[attr-defined]
    return do_bench


def not_timed(quantiles: Any, return_mode: Any) -> Any:
    """What do_bench returns with no time measured: one NaN per quantile (a lone quantile as a float, as
    Triton returns it), a list of the one run for "all", else one NaN."""
    if quantiles is not None:
        values = [NOT_TIMED] * len(list(quantiles))
        return values[0] if len(values) == 1 else values
    return [NOT_TIMED] if return_mode == "all" else NOT_TIMED


def _say_once(name: str, frame: Any, why: str) -> None:
    if _said:
        return
    _said.append(name)
    print(f"ttinspect: note: triton.testing.{name} (first called at {launches.shown_site(frame)}) timed nothing "
          f"{why}: it ran its function once (its launches recorded) and returned NaN, so a library's own tuner "
          "keeps its first config (the choice needs the GPU's timings)", file=sys.stderr)


def reset() -> None:
    _said.clear()

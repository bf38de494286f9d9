"""What @triton.autotune and @triton.heuristics decided during a captured run, as records
(docs/capture.md, "autotune" and "heuristics").

The hooks (hooks.py) wrap Autotuner.run, Autotuner._bench, Autotuner.prune_configs and Heuristics.run and
tell this module when each starts and ends; what happens in between is kept per thread (`context`):
- an autotune record is written when Autotuner.run added a key to the autotuner's cache (it tuned): every
  config, the time Triton measured for each (its `configs_timings`, median ms; null for a config it did not
  time or that failed to run, and all null under the interpreter, whose timings mean nothing), the winner,
  the configs prune_configs_by kept, the compiles the tuning launched and the grid each benchmarked config
  launched with (its `grids`: the launch's own grid as it reached the JIT, else the grid callable evaluated
  with the bound arguments and the config's values where no launch evaluated it — an untimed stand-in under
  Triton's interpreter; null where neither is known), so its configs can be ranked offline;
- launches made while the autotuner times a config are not counted as the program's launches (they are
  still listed as the tuning's compiles);
- a heuristics record is written once per distinct (values, compile): the values the heuristics put into
  the launch's keyword arguments, read where the launch reaches the JIT.
"""

from __future__ import annotations

import os
import threading
import weakref
from typing import Any, Callable, Mapping, Sequence

from ttinspect.capture import launches, triton_hooks
from ttinspect.capture.hook_errors import guarded
from ttinspect.capture.launch_grid import GridRaised, evaluated_grid
from ttinspect.capture.signature_text import constexpr_json

_MAX_HEURISTICS_SEEN = 10_000
untimed = [False]  # the autotuner's _bench times nothing (`capture --as`): its choice is not known


class Tuning:
    """One Autotuner.run in progress."""
    __slots__ = ("autotuner", "cache_size", "timings", "pruned", "compiles", "benched", "benching")

    def __init__(self, autotuner: Any):
        self.autotuner = autotuner
        self.cache_size = len(getattr(autotuner, "cache", ()) or ())
        self.timings = getattr(autotuner, "configs_timings", None)  # a new dict means it timed in this run
        self.pruned: list[Any] | None = None
        self.compiles: list[str] = []
        self.benched: list[list[Any]] = []  # [config, its 3-D grid or None] per config benchmarked, in order
        self.benching: list[Any] | None = None  # the entry of `benched` now being benchmarked


class Context(threading.local):
    """Per thread: what the launch now reaching the JIT runs inside of. `busy` is the one test a launch
    outside any autotuner or heuristics pays."""
    busy = False
    benchmarking = 0
    heuristics: tuple[Any, ...] = ()
    tunings: tuple[Tuning, ...] = ()


context = Context()
active = 0  # threads inside an autotuner or heuristics: while 0, a launch reads no thread-local at all
_known_keys: weakref.WeakKeyDictionary[Any, set[Any]] = weakref.WeakKeyDictionary()
_heuristics_seen: set[tuple[Any, ...]] = set()


def reset() -> None:
    """A new capture records what it sees anew (an autotuner's keys tuned before it began stay unrecorded)."""
    _known_keys.clear()
    _heuristics_seen.clear()


def _refresh(ctx: Context) -> None:
    global active
    busy = bool(ctx.benchmarking or ctx.heuristics or ctx.tunings)
    if busy != ctx.busy:
        active += 1 if busy else -1
        ctx.busy = busy


# --- entered and left by the hooks ---------------------------------------------------------------------------

def enter_autotune(autotuner: Any) -> Tuning:
    tuning = Tuning(autotuner)
    if autotuner not in _known_keys:  # keys tuned before the capture began are not this run's
        _known_keys[autotuner] = set(getattr(autotuner, "cache", ()) or ())
    context.tunings = context.tunings + (tuning,)
    _refresh(context)
    return tuning


def leave_autotune(tuning: Tuning, session: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
    context.tunings = tuple(t for t in context.tunings if t is not tuning)
    _refresh(context)
    autotuner = tuning.autotuner
    cache = getattr(autotuner, "cache", None) or {}
    if session is None or len(cache) == tuning.cache_size:
        return
    known = _known_keys.setdefault(autotuner, set())
    for key in list(cache):
        if key not in known:
            known.add(key)
            session.add_autotune(autotune_record(tuning, key, cache[key], args, kwargs))


def enter_bench() -> None:
    context.benchmarking += 1
    _refresh(context)


def leave_bench() -> None:
    context.benchmarking -= 1
    _refresh(context)


def pruned(result: Any) -> None:
    if context.tunings:
        context.tunings[-1].pruned = list(result or ())


def enter_heuristics(heuristics: Any) -> None:
    context.heuristics = context.heuristics + (heuristics,)
    _refresh(context)


def leave_heuristics(heuristics: Any) -> None:
    context.heuristics = tuple(h for h in context.heuristics if h is not heuristics)
    _refresh(context)


def autotuned() -> dict[str, Any] | None:
    """The compile's "autotuned" field: made inside an Autotuner.run, of so many configs."""
    if not context.tunings:
        return None
    return {"configs": len(getattr(context.tunings[-1].autotuner, "configs", ()) or ())}


def observe_launch(session: Any, compile_id: str, kwargs: Mapping[str, Any], grid: Any = None) -> bool:
    """A launch inside an autotuner or heuristics reached the JIT (with `grid`, as evaluated there): note what
    they decided. True when the autotuner is timing a config (the launch is not the program's own)."""
    for heuristics in context.heuristics:
        _heuristics_record(session, heuristics, compile_id, kwargs)
    if context.tunings:
        tuning = context.tunings[-1]
        if compile_id not in tuning.compiles:
            tuning.compiles.append(compile_id)
        entry = tuning.benching
        if context.benchmarking and entry is not None and entry[1] is None:  # the config's first launch only
            entry[1] = launches.grid3(grid)
    return context.benchmarking > 0


# --- the records ---------------------------------------------------------------------------------------------

def _heuristics_record(session: Any, heuristics: Any, compile_id: str, kwargs: Mapping[str, Any]) -> None:
    names = list(getattr(heuristics, "values", {}) or {})
    dtypes = triton_hooks.dtype_names()
    values = {name: constexpr_json(kwargs.get(name), dtypes) for name in names}
    seen = (id(heuristics), compile_id, repr(sorted(values.items())))
    if seen in _heuristics_seen or len(_heuristics_seen) >= _MAX_HEURISTICS_SEEN:
        return
    _heuristics_seen.add(seen)
    inner = getattr(heuristics, "fn", None)
    session.add_heuristics({"name": getattr(inner, "__name__", None) or "?", "values": values,
                            "compile": compile_id})


def config_dict(config: Any) -> dict[str, Any]:
    """A triton.Config as the record writes it: its constexprs and its options."""
    dtypes = triton_hooks.dtype_names()
    out: dict[str, Any] = {"kwargs": {k: constexpr_json(v, dtypes) for k, v in (config.kwargs or {}).items()}}
    for key in triton_hooks.OPTION_KEYS:
        if hasattr(config, key):
            out[key] = getattr(config, key)
    return out


def _identity(config: Any) -> str:
    return repr(sorted(config_dict(config).items()))


def autotune_record(tuning: Tuning, key: Any, best: Any, args: Sequence[Any],
                    kwargs: Mapping[str, Any]) -> dict[str, Any]:
    autotuner = tuning.autotuner
    configs = list(getattr(autotuner, "configs", ()) or ())
    timings = getattr(autotuner, "configs_timings", None)
    timed = timings if timings is not tuning.timings and isinstance(timings, dict) else None
    # configs the pruner made or the disk cache read back are not among autotuner.configs: added after them
    index: dict[str, int] = {}
    for config in configs:
        index.setdefault(_identity(config), len(index))
    listed = list(configs)
    for config in [*(timed or ()), *(tuning.pruned or ()), best]:
        if _identity(config) not in index:
            index[_identity(config)] = len(listed)
            listed.append(config)
    interpreted = triton_hooks.interpreter_on()
    timings_ms: list[float | None] | None = None
    if timed is not None and not interpreted:
        timings_ms = [None] * len(listed)
        for config, measured in timed.items():
            timings_ms[index[_identity(config)]] = _median(measured)
    kept = tuning.pruned
    pruned_to = sorted({index[_identity(c)] for c in kept}) if kept is not None and len(kept) < len(configs) else None
    base = getattr(autotuner, "base_fn", None)
    code = getattr(base, "__code__", None)
    record = {"name": getattr(base, "__name__", None) or "?",
              "file": os.path.abspath(code.co_filename) if code is not None else None,
              "key": key_values(autotuner, key, args, kwargs), "configs": [config_dict(c) for c in listed],
              "timings_ms": timings_ms, "best": None if untimed[0] and timings_ms is not None and len(listed) > 1
              else index[_identity(best)], "pruned_to": pruned_to,
              "compiles": list(tuning.compiles)}
    if tuning.benched:  # a tuning that benchmarked nothing (one config, a disk-cache hit) has no grids to say
        grids: list[list[int] | None] = [None] * len(listed)
        for config, grid in tuning.benched:
            at = index.get(_identity(config)) if config is not None else None
            if at is not None and grid is not None and grids[at] is None:
                grids[at] = list(grid)
        record["grids"] = grids
    return record


def _median(measured: Any) -> float | None:
    value = measured[0] if isinstance(measured, (list, tuple)) and measured else measured
    if not isinstance(value, (int, float)) or value != value or value in (float("inf"), float("-inf")):
        return None  # the config failed to run (Triton times it as inf)
    return float(value)


def key_values(autotuner: Any, key: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The tuning key by name, as Triton builds it: the values of the `key=` arguments, then the dtype of
    every argument that has one ("a_ptr.dtype": "torch.float16")."""
    arg_names = list(getattr(autotuner, "arg_names", ()) or ())
    given = {**dict(zip(arg_names, args, strict=False)), **kwargs}
    given = {k: v for k, v in given.items() if k in arg_names}
    names = [k for k in (getattr(autotuner, "keys", ()) or ()) if k in given]
    names += [f"{k}.dtype" for k, v in given.items() if hasattr(v, "dtype")]
    values = list(key) if isinstance(key, tuple) else [key]
    dtypes = triton_hooks.dtype_names()
    if len(names) != len(values):  # a key made some other way: its values in order
        return {str(i): constexpr_json(v, dtypes) for i, v in enumerate(values)}
    return {name: constexpr_json(value, dtypes) for name, value in zip(names, values, strict=True)}


# --- the wrappers hooks.py installs ---------------------------------------------------------------------------

def autotuner_run(original: Callable[..., Any], current: Callable[[], Any]) -> Callable[..., Any]:
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        session = current()
        if session is None:
            return original(self, *args, **kwargs)
        state = enter_autotune(self)
        try:
            return original(self, *args, **kwargs)
        finally:
            guarded(leave_autotune, state, session, args, kwargs)

    return run


def bench(original: Callable[..., Any], instead: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """Autotuner._bench, its launches marked as the tuning's and the config's grid noted; `instead(autotuner,
    args, config, meta)` takes its place where nothing may run (`capture --as`): then no autotuner's choice is
    known (`best` is null)."""
    untimed[0] = instead is not None
    def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
        enter_bench()
        tuning = next((t for t in reversed(context.tunings) if t.autotuner is self), None)
        outer = tuning.benching if tuning is not None else None
        if tuning is not None:
            tuning.benching = [kwargs.get("config"), None]
            tuning.benched.append(tuning.benching)
        try:
            if instead is not None:
                meta = dict(kwargs)
                return instead(self, args, meta.pop("config"), meta)
            return original(self, *args, **kwargs)
        finally:
            leave_bench()
            if tuning is not None:
                entry, tuning.benching = tuning.benching, outer
                if entry is not None and entry[1] is None:  # no launch evaluated it (an interpreter stand-in)
                    entry[1] = guarded(_config_grid, self, args, kwargs)

    return timed


def _config_grid(autotuner: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[int, ...] | None:
    """The grid the benchmarked config's launch would have: the launch's grid callable, evaluated as the JIT
    evaluates it, with the bound arguments and the config's values."""
    meta = dict(kwargs)
    config, grid = meta.pop("config", None), meta.pop("grid", None)
    if config is None or grid is None:
        return None
    meta.pop("warmup", None)
    function = getattr(autotuner, "base_fn", None) or autotuner
    try:
        return launches.grid3(evaluated_grid(function, grid, args, {**meta, **config.all_kwargs()}))
    except GridRaised:  # the program's grid refused this config (Triton's benchmarker times it inf): no grid
        return None


def prune_configs(original: Callable[..., Any]) -> Callable[..., Any]:
    def pruning(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        guarded(pruned, result)
        return result

    return pruning


def heuristics_run(original: Callable[..., Any], current: Callable[[], Any]) -> Callable[..., Any]:
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        if current() is None:
            return original(self, *args, **kwargs)
        enter_heuristics(self)
        try:
            return original(self, *args, **kwargs)
        finally:
            leave_heuristics(self)

    return run

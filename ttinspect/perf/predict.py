"""`predict()` and `rank()`: a kernel reference (or object) compiled through the one resolver and its cache,
its facts handed to the model (model.py) with the launch's values and grid.

    from ttinspect import predict, rank, Pointer
    p = predict("my.py:matmul", arch="sm_90", device="H100 SXM", args={...}, config={...}, grid=lambda meta: (...))
    ranked = rank("my.py:matmul", configs, args={...}, grid=lambda meta: (...), arch="sm_90")
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from ttinspect.api import Report, inspect
from ttinspect.errors import TTInspectError, UsageError
from ttinspect.kernel.argument_types import Pointer, Scalar, TensorDesc
from ttinspect.perf.devices import device_for
from ttinspect.perf.model import Prediction, not_predicted, predict_from_facts
from ttinspect.perf.unroll import ptx_loop_global_loads
from ttinspect.refs.kinds import kind_of
from ttinspect.refs.reference import parse_ref

Grid = tuple[int, ...] | Callable[[Mapping[str, Any]], tuple[int, ...]] | None
OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


def launch_values(kernel: Any, args: Mapping[str, Any] | None, report) -> dict[str, Any]:
    """The launch's values by name: the given args' ints (a variant's own when none are given) and the
    compiled config's constexprs and options."""
    values: dict[str, Any] = {}
    if args is None and isinstance(kernel, str) and kind_of(kernel) == "variant":
        resolved = parse_ref(kernel.partition("@")[0], dict(report.config)).resolved
        args = resolved.variant.make_args(resolved.problem, resolved.config)
    for name, value in (args or {}).items():
        if isinstance(value, (Pointer, Scalar, TensorDesc)) or (isinstance(value, str) and not _int_text(value)):
            continue
        values[name] = int(value) if isinstance(value, str) else value
    values.update({k: v for k, v in report.config.items()})
    return values


def _int_text(text: str) -> bool:
    try:
        int(text, 0)
        return True
    except ValueError:
        return False


def resolve_grid(grid: Grid, meta: Mapping[str, Any]) -> tuple[int, ...] | None:
    """A tuple, or Triton's grid callable called with the meta dict (args and constexprs by name)."""
    if grid is None:
        return None
    value = grid(dict(meta)) if callable(grid) else grid
    if isinstance(value, int):
        value = (value,)
    try:
        return tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise UsageError(f"grid must give 1-3 ints, got {value!r}") from None


def predict(kernel: Any, arch: str | None = None, device: str | None = None, *, args: Mapping[str, Any] | None = None,
            config: Mapping[str, Any] | int | None = None, grid: Grid = None, signature: str | None = None,
            report: Report | None = None) -> Prediction:
    """The predicted time of one launch (see the module docstring). `report`: an already made report of
    the same kernel and config (rank passes it, to skip the resolver)."""
    report = report or inspect(kernel, arch, args=args, config=config, signature=signature)
    target = report.target
    dev = device_for(target, device)
    values = launch_values(kernel, args, report)
    facts = {f.key: f.value for f in report.facts}
    build = report.build
    ttir = build.artifacts.text("ttir") if build is not None else None
    if build is None or ttir is None:
        return not_predicted(dev, "the build has no TTIR")
    ptx = build.artifacts.text("ptx")
    if ptx is not None:  # the PTX main loop's loads: with the SASS's, how far ptxas unrolled it (unroll.py)
        facts["ptx_loop_global_loads"] = ptx_loop_global_loads(ptx)
    return predict_from_facts(facts, ttir, dev, values, resolve_grid(grid, values))


def rank(kernel: Any, configs: Sequence[Mapping[str, Any]] | None = None, *, args: Mapping[str, Any] | None = None,
         grid: Grid = None, arch: str | None = None, device: str | None = None, signature: str | None = None,
         jobs: int | None = None) -> list[Prediction]:
    """Each config's prediction, fastest first; configs that cannot run or be predicted last, with the
    reason. `configs`: dicts of constexprs plus num_warps/num_stages, or None for an autotuned kernel's own
    list. A cold list is compiled in parallel (sweep's workers) when the kernel is a reference."""
    chosen: list[Mapping[str, Any] | int]
    if configs is None:
        count = _autotune_count(kernel, arch, args, signature)
        chosen = list(range(1, count + 1))
    else:
        chosen = list(configs)
    if isinstance(kernel, str) and len(chosen) > 1:
        warm_in_parallel(kernel, chosen, arch, args, signature, jobs)
    results = []
    for config in chosen:
        try:
            report = inspect(kernel, arch, args=args, config=config, signature=signature)
            p = predict(kernel, arch, device, args=args, config=config, grid=grid, report=report)
        except TTInspectError as error:
            p = not_predicted(device_for(arch or "sm_90", device), f"{type(error).__name__}: {error}", runs=False)
        given = dict(config) if isinstance(config, Mapping) else {"config": config}
        results.append(_with_config(p, given))
    return sorted(results, key=lambda p: (p.time_ms is None, p.time_ms or 0.0))


def _with_config(p: Prediction, config: Mapping[str, Any]) -> Prediction:
    from dataclasses import replace

    return replace(p, config=config)


def _autotune_count(kernel, arch, args, signature) -> int:
    try:
        inspect(kernel, arch, args=args, config=2, signature=signature)
    except TTInspectError:
        return 1
    count = 2
    while True:
        try:
            inspect(kernel, arch, args=args, config=count + 1, signature=signature)
        except TTInspectError:
            return count
        count += 1


def warm_in_parallel(kernel: str, configs: Sequence[Any], arch: str | None, args, signature, jobs: int | None) -> None:
    """Compile the configs the cache lacks in the sweep's worker processes (the same task a sweep runs), so
    the loop after it only reads the cache."""
    from ttinspect.sweep.executors import LocalPool, default_jobs  # only for a cold list: the pool's imports

    options = {"args": {k: _arg_text(v) for k, v in (args or {}).items()},
               **({"signature": signature} if signature else {})}
    work = []
    for index, config in enumerate(configs):
        overrides = {"config": config} if isinstance(config, int) else dict(config)
        work.append((index, kernel, overrides, arch, options))
    for _index, _row in LocalPool(jobs or default_jobs()).run(work):
        pass


def _arg_text(value: Any) -> Any:
    if isinstance(value, Pointer):
        return f"*{value.dtype}"
    if isinstance(value, TensorDesc):
        return f"tensordesc<{value.dtype}[{', '.join(str(d) for d in value.block_shape)}]>"
    return value

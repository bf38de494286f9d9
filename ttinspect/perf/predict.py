"""`predict()` and `rank()`: a kernel reference (or object) compiled through the one resolver and its cache,
its facts handed to the model (model.py) with the launch's values and grid.

    from ttinspect import predict, rank, Pointer
    p = predict("my.py:matmul", arch="sm_90", device="H100 SXM", args={...}, config={...}, grid=lambda meta: (...))
    ranked = rank("my.py:matmul", configs, args={...}, grid=lambda meta: (...), arch="sm_90")
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ttinspect.api import Report, inspect
from ttinspect.errors import TTInspectError
from ttinspect.kernel.argument_types import Pointer, TensorDesc
from ttinspect.perf.devices import target_of
from ttinspect.perf.model import Prediction, config_mapping, not_predicted
from ttinspect.perf.profile import DeviceProfile, with_profile
from ttinspect.perf.report_prediction import Grid, device_for_profile, launch_grid, launch_values, predict_report

__all__ = ["Grid", "device_for_profile", "launch_grid", "launch_values", "predict", "predict_report", "rank"]


def predict(kernel: Any, arch: str | None = None, device: str | None = None, *, args: Mapping[str, Any] | None = None,
            config: Mapping[str, Any] | int | None = None, grid: Grid = None, signature: str | None = None,
            report: Report | None = None, device_profile: DeviceProfile | None = None) -> Prediction:
    """The predicted time of one launch (see the module docstring). `report`: an already made report of
    the same kernel and config (rank passes it, to skip the resolver). `device_profile`: figures measured by
    `ttinspect calibrate` (perf/profile.py's read_profile), laid over the device's datasheet row."""
    arch = target_of(arch, device, device_profile)
    report = report or inspect(kernel, arch, args=args, config=config_mapping(config), signature=signature)
    dev = device_for_profile(report.target, device, device_profile)
    values = launch_values(kernel, args, report, signature)
    return predict_report(report, dev, values, launch_grid(grid, kernel, values, report, dev), device_profile)


def rank(kernel: Any, configs: Sequence[Any] | None = None, *, args: Mapping[str, Any] | None = None,
         grid: Grid = None, arch: str | None = None, device: str | None = None, signature: str | None = None,
         jobs: int | None = None, device_profile: DeviceProfile | None = None) -> list[Prediction]:
    """Each config's prediction, fastest first; configs that cannot run or be predicted last, with the
    reason. `configs`: dicts of constexprs plus num_warps/num_stages (or `triton.Config`s), or None for an
    autotuned kernel's own list. A cold list is compiled in parallel (sweep's workers) when the kernel is a
    reference; a warm one is read from the cache (the builds, and each prediction made before: memo.py)."""
    arch = target_of(arch, device, device_profile)
    chosen: list[Mapping[str, Any] | int]
    if configs is None:
        listed = _autotune_list(kernel, arch)
        count = len(listed) if listed else _autotune_count(kernel, arch, args, signature)
        chosen = list(range(1, count + 1))
        given: list[Any] = [None] * count
    else:
        listed = None
        given = list(configs)
        chosen = [config_mapping(config) for config in given]
    warm: dict[int, Report] = {}
    parallel = isinstance(kernel, str) and len(chosen) > 1
    if parallel:
        warm = warm_in_parallel(kernel, chosen, arch, args, signature, jobs)
        # only for a list: the pool's imports, and what the workers run
        from ttinspect.perf.parallel_predict import predict_in_parallel

        warm = predict_in_parallel(kernel, chosen, warm, arch=arch, device=device, args=args, signature=signature,
                            grid=grid, device_profile=device_profile, jobs=jobs)
    results = []
    for index, config in enumerate(chosen):
        report = None
        try:
            report = warm.get(index) or inspect(kernel, arch, args=args, config=config, signature=signature)
            p = predict(kernel, arch, device, args=args, config=config, grid=grid, report=report,
                        device_profile=device_profile)
        except TTInspectError as error:
            fallback = device_for_profile(arch or "sm_90", device, device_profile)
            said = f"{type(error).__name__}: {str(error).splitlines()[0]}"  # its first line (then its source)
            p = with_profile(not_predicted(fallback, said, runs=False), device_profile)
        results.append(_with_config(p, _as_given(given[index], config, report, listed[index] if listed else None)))
    return sorted(results, key=lambda p: (p.time_ms is None, p.time_ms or 0.0))


def _as_given(given: Any, config: Any, report: Report | None, listed: Mapping[str, Any] | None) -> Any:
    """What a result's `.config` holds: the config as the caller gave it (dict or triton.Config); for an
    autotuned kernel's own list, the N-th config's constexprs and options as compiled (as listed where it did
    not compile)."""
    if given is not None:
        return given
    if report is not None:
        return dict(report.config)
    return dict(listed) if listed is not None else {"config": config}


def _autotune_list(kernel: Any, arch: str | None) -> Sequence[Mapping[str, Any]] | None:
    """An autotuned kernel's own list, read from its autotuner (a reference or the kernel object): every
    config, also those that fail to compile (each is ranked, last, with its reason). None where the list is
    not read this way (a capture, a cache entry): then counted by compiling (_autotune_count)."""
    from ttinspect.sweep.run import autotune_list, own_configs  # imports the kernel's module (and triton)

    try:
        return (autotune_list(kernel, arch) or None) if isinstance(kernel, str) else own_configs(kernel)
    except TTInspectError:  # the compile path says it again, with its reason
        return None


def _with_config(p: Prediction, config: Any) -> Prediction:
    from dataclasses import replace

    return replace(p, config=config)


def _autotune_count(kernel, arch, args, signature) -> int:
    """Where the list cannot be read: the configs that compile, counted from the first (2, 3, ... until one
    does not)."""
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


def warm_in_parallel(kernel: str, configs: Sequence[Any], arch: str | None, args, signature,
                     jobs: int | None) -> dict[int, Report]:
    """Compile the configs the cache lacks in the sweep's worker processes (the same task a sweep runs), so
    the loop after it only reads the cache; the warm ones' reports, by index (read once, not again)."""
    from ttinspect.sweep.executors import LocalPool, default_jobs  # only for a cold list: the pool's imports

    options = {"args": {k: _arg_text(v) for k, v in (args or {}).items()},
               **({"signature": signature} if signature else {})}
    work = []
    warm: dict[int, Report] = {}
    for index, config in enumerate(configs):
        report = _warm_report(kernel, config, arch, args, signature)
        if report is not None:
            warm[index] = report
            continue  # a warm list starts no pool at all (its start alone is a quarter second)
        overrides = {"config": config} if isinstance(config, int) else dict(config)
        work.append((index, kernel, overrides, arch, options))
    if not work:
        return warm
    for _index, _row in LocalPool(jobs or default_jobs()).run(work):
        pass
    return warm


def _warm_report(kernel: str, config: Any, arch: str | None, args, signature) -> Report | None:
    """The config's report when its build is in the cache, else None (it is compiled by a worker). A config
    refused without compiling is None too: rank's loop says why, as it does for a cold one."""
    from ttinspect.engine.builds import NotCached, cached_only  # only for a list: what a cold build raises

    try:
        with cached_only():
            return inspect(kernel, arch, args=args, config=config, signature=signature)
    except (NotCached, TTInspectError):
        return None


def _arg_text(value: Any) -> Any:
    if isinstance(value, Pointer):
        return f"*{value.dtype}"
    if isinstance(value, TensorDesc):
        return f"tensordesc<{value.dtype}[{', '.join(str(d) for d in value.block_shape)}]>"
    return value

"""rank()'s predictions not yet kept in the cache, made in the sweep's worker processes: counting a launch's
work from the TTIR (work.py) is a CPU's fraction of a second per config at large sizes, so a list of 150
is spread over the cores as its compiles are. Each worker predicts from the warm build and keeps the
prediction beside it (memo.py); rank's own loop then reads every one.

The grid is evaluated here, in the caller's process (a lambda does not travel to a worker); the worker gets
its ints, and the device profile as its dict.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ttinspect.api import Report, inspect
from ttinspect.errors import TTInspectError
from ttinspect.perf.report_prediction import (Grid, device_for_profile, is_kept, launch_values, predict_report,
                                              launch_grid)
from ttinspect.perf.profile import DeviceProfile, profile_from_dict
from ttinspect.sweep.executors import LocalPool, default_jobs


def predict_in_parallel(kernel: str, configs: Sequence[Any], warm: Mapping[int, Report], *, arch: str | None,
                        device: str | None, args: Mapping[str, Any] | None, signature: str | None, grid: Grid,
                        device_profile: DeviceProfile | None, jobs: int | None) -> dict[int, Report]:
    """Predict, in worker processes, the configs whose prediction the cache lacks (two or more: one is
    made in rank's own loop). Returns every config's report read here, by index."""
    work: list[tuple[int, str, Mapping[str, Any], str | None, Mapping[str, Any]]] = []
    reports: dict[int, Report] = {}
    for index, config in enumerate(configs):
        try:
            report = reports[index] = warm.get(index) or inspect(kernel, arch, args=args, config=config,
                                                                 signature=signature)
            dev = device_for_profile(report.target, device, device_profile)
            values = launch_values(kernel, args, report, signature)
            launch = launch_grid(grid, kernel, values, report, dev)
            if is_kept(report, dev, values, launch):
                continue
        except TTInspectError:
            continue  # rank's loop says why, for this config alone
        options = {"args": dict(args or {}), "signature": signature, "config": config, "device": device,
                   "grid": list(launch) if launch is not None else None,
                   "profile": device_profile.as_dict() if device_profile is not None else None,
                   "profile_path": device_profile.path if device_profile is not None else ""}
        work.append((index, kernel, {}, arch, options))
    if len(work) >= 2:
        for _index, _row in LocalPool(jobs or default_jobs()).run(work, task=predict_point):
            pass
    return reports


def predict_point(ref: str, overrides: Mapping[str, Any], arch: str | None, options: Mapping[str, Any],
                  driver: Any = None) -> dict:
    """A worker's task (LocalPool's signature): one config's prediction, kept in the cache. Never raises."""
    try:
        profile = profile_from_dict(options["profile"], options["profile_path"]) if options["profile"] else None
        args = options["args"] or None
        report = inspect(ref, arch, args=args, config=options["config"], signature=options["signature"])
        dev = device_for_profile(report.target, options["device"], profile)
        launch = tuple(options["grid"]) if options["grid"] is not None else None
        predict_report(report, dev, launch_values(ref, args, report, options["signature"]), launch, profile)
    except TTInspectError as error:
        return {"error": str(error)}
    return {}


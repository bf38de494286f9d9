"""A sweep's `time` column: each compiled point's predicted time (ms) on a device — the target's usual GPU,
or `--device NAME` — for the grid `--launch-grid` gives, so that `--sort time --top 8` prunes an autotune
list to the eight predicted fastest.

The column is put in the row's facts like any other (with the reason where it is unknown), so the sweep's
`--sort`, `--columns`, `--where`, `--csv` and `--json` treat it as they treat `registers`: none of them
knows it is a prediction. Each point is read back warm (its build is in the cache once the sweep ran) and
predicted through predict.py, whose predictions are kept beside the builds (memo.py).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ttinspect.errors import TTInspectError
from ttinspect.perf.report_prediction import device_for_profile, launch_values, predict_report, launch_grid
from ttinspect.perf.profile import DeviceProfile
from ttinspect.report.collect import report_from_build
from ttinspect.sweep.task import resolve_point

TIME_COLUMN = "time"  # ms, predicted
BOUND_COLUMN = "time_bound"  # the term that sets it
COLUMNS = (TIME_COLUMN, BOUND_COLUMN)


def add_predicted_times(ref: str, rows: list[dict], options: Mapping[str, Any], *, device: str | None,
                        grid: Callable[[Mapping[str, Any]], tuple[int, ...]] | None,
                        device_profile: DeviceProfile | None = None) -> str:
    """Put `time` and `time_bound` in each compiled row's facts (None with the reason where there is no
    prediction). Returns the figures used, for the table's notes: "datasheet" or the profile's label."""
    figures = device_profile.label if device_profile is not None else "datasheet"
    for row in rows:
        if row.get("error"):
            continue
        facts, reasons = row.setdefault("facts", {}), row.setdefault("reasons", {})
        try:
            report = report_from_build(resolve_point(ref, row.get("point") or {}, row.get("arch"), options))
            dev = device_for_profile(report.target, device, device_profile)
            values = launch_values(ref, _args(options), report, options.get("signature"))
            p = predict_report(report, dev, values, launch_grid(grid, ref, values, report, dev), device_profile)
        except TTInspectError as error:
            facts[TIME_COLUMN] = facts[BOUND_COLUMN] = None
            reasons[TIME_COLUMN] = reasons[BOUND_COLUMN] = f"not predicted: {error}"
            continue
        facts[TIME_COLUMN] = round(p.time_ms, 6) if p.time_ms is not None else None
        facts[BOUND_COLUMN] = p.bound
        if p.time_ms is None:
            why = ("cannot run: " if not p.runs else "unknown: ") + str(p.reason)
            reasons[TIME_COLUMN] = reasons[BOUND_COLUMN] = why
        else:
            row["predicted_on"] = f"{p.device} ({figures} figures)"
    return figures


def _args(options: Mapping[str, Any]) -> dict[str, Any] | None:
    given = options.get("args") or {}
    return dict(given) if given else None

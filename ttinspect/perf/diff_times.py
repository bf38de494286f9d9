"""Doc 003 §5 for two kernels (`ttinspect diff A B --device NAME`): each side's predicted time on one device,
the speedup of B over A, and every term of the model from A to B — the bound's, those under it, the launch
— so that a change's effect reads as "DRAM 0.41 → 0.12 ms, the bound moved to the tensor cores"."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ttinspect.api import Report
from ttinspect.errors import UsageError
from ttinspect.kernel.arguments import parse_arg_items
from ttinspect.perf.grid_text import grid_from_text
from ttinspect.perf.model import Prediction
from ttinspect.perf.report_prediction import Grid, device_for_profile, launch_values, predict_report, launch_grid
from ttinspect.perf.profile import DeviceProfile


def diff_times(refs: Sequence[str], reports: Sequence[Report], *, device: str | None = None,
               grids: Sequence[Grid] = (None, None), args: Mapping[str, Any] | None = None,
               device_profile: DeviceProfile | None = None, signature: str | None = None) -> dict[str, Any]:
    """Both sides predicted on the same device (the named one, else A's target's default): a plain dict,
    as `diff --json` writes it under "predicted"."""
    dev = device_for_profile(reports[0].target, device, device_profile)
    sides = []
    for ref, report, grid in zip(refs, reports, grids, strict=True):
        values = launch_values(ref, args, report, signature)
        sides.append(predict_report(report, dev, values, launch_grid(grid, ref, values, report, dev), device_profile))
    a, b = sides
    speedup = a.time_ms / b.time_ms if a.time_ms and b.time_ms else None
    return {"device": dev.name, "figures": a.details.get("figures", "datasheet"),
            "a": {"ref": refs[0], **a.as_dict()}, "b": {"ref": refs[1], **b.as_dict()},
            "speedup": speedup, "terms": term_changes(a, b) if speedup is not None else []}


def diff_times_of_texts(refs: Sequence[str], reports: Sequence[Report], device: str | None,
                        device_profile: DeviceProfile | None, grid_texts: Sequence[str],
                        arg_texts: Sequence[str], signature: str | None = None) -> dict[str, Any]:
    """`diff --device`'s options as typed: --launch-grid once (both sides) or twice (A's, then B's), --arg,
    --signature (its values count as --arg's)."""
    if len(grid_texts) > 2:
        raise UsageError(f"diff takes --launch-grid once (both sides) or twice (A's, then B's), not "
                         f"{len(grid_texts)} times")
    grids: list[Any] = [grid_from_text(text) for text in grid_texts] or [None]
    return diff_times(refs, reports, device=device, grids=(grids[0], grids[-1]),
                      args=parse_arg_items(arg_texts) if arg_texts else None, device_profile=device_profile,
                      signature=signature)


def _terms(p: Prediction) -> dict[str, float]:
    """Every term's time: the parts the time adds up from, and those that run under the bound."""
    return {**p.hidden, **p.breakdown}


def term_changes(a: Prediction, b: Prediction) -> list[dict[str, Any]]:
    """One row per term either side has, the larger first: its time on each side and the relative change."""
    ta, tb = _terms(a), _terms(b)
    names = sorted(set(ta) | set(tb), key=lambda n: -max(ta.get(n, 0.0), tb.get(n, 0.0)))
    rows = []
    for name in names:
        ma, mb = ta.get(name), tb.get(name)
        change = (mb - ma) / ma if ma and mb is not None else None
        rows.append({"term": name, "a_ms": ma, "b_ms": mb, "change": change,
                     "bound": [side for side, p in (("A", a), ("B", b)) if p.bound == name]})
    return rows

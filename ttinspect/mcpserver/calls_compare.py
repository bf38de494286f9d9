"""The tools that compare, judge or span kernels: diff, check, sweep — the library functions `ttinspect diff`,
`check` and `sweep` call, the same JSON as their `--json` (check's findings also carry `edit`, edits.py)."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from ttinspect.errors import TTInspectError, UsageError
from ttinspect.mcpserver.calls import Call, text_or_none
from ttinspect.mcpserver.edits import with_edits

MAX_POINTS = 256


class Failed(TTInspectError):
    """What the CLI ends with a line and a code of its own (a sweep whose every point failed)."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code


def diff(call: Call) -> dict[str, Any]:
    # the resolver, the comparison and the pass history: loaded when this tool runs
    from ttinspect.compare.facts_diff import diff_reports
    from ttinspect.engine.builds import compile_with_pass_dumps
    from ttinspect.refs.resolver import resolve_one
    from ttinspect.report.collect import report_from_build

    a = call.reference("a", "code_a")
    has_b = call.get("b") is not None or call.get("code_b") is not None
    b = call.reference("b", "code_b") if has_b else None
    configs = list(call.get("configs", []))
    if len(configs) > 2:
        raise UsageError(f"`configs` holds one config (both sides) or two (A's, then B's), not {len(configs)}")
    if b is None:
        if len(configs) != 2:
            raise UsageError("diff compares two kernels: give `a` and `b` (or `code_a` and `code_b`), or one kernel "
                             "and two `configs`")
        sides = [(a, configs[0]), (a, configs[1])]
    else:
        sides = [(a, configs[0] if configs else None), (b, configs[-1] if configs else None)]
    stage, passes = call.get("stage"), bool(call.get("passes"))
    options = [call.options(config=text_or_none(config)) for _, config in sides]
    with compile_with_pass_dumps() if passes else contextlib.nullcontext():  # a cold build compiles once, dumps too
        builds = [resolve_one(ref, option) for (ref, _), option in zip(sides, options, strict=True)]
    data = diff_reports(*(report_from_build(x) for x in builds)).as_dict()
    if stage is not None:
        # the loop slicer and the text diff: loaded when a stage is asked for
        from ttinspect.compare.loop_diff import main_loop_diff

        data["loop_diff"] = {"stage": stage, "unified": main_loop_diff(str(stage), builds)}
    if passes:
        # the pass history: loaded only when asked for
        from ttinspect.passes import history
        from ttinspect.passes.align import diverge

        data["passes"] = diverge(*(history(x) for x in builds)).as_dict()
    return data


def check(call: Call) -> dict[str, Any]:
    # the rules, the resolver and the capture's reader: loaded when this tool runs
    from ttinspect.check import at_least, check_reference
    from ttinspect.refs.capture_listing import names_several

    ref = call.reference()
    min_severity = str(call.get("min_severity", "info"))
    passes = bool(call.get("passes"))
    options = call.options()
    if names_several(ref):  # a capture: every compile it holds
        # the capture's checks: loaded for a capture only
        from ttinspect.check.captured import check_capture
        from ttinspect.render.capture_check import capture_check_json

        listing, rows = check_capture(ref, options, passes)
        data = capture_check_json(listing, rows, min_severity)
        for entry in data["compiles"]:
            entry["findings"] = with_edits(entry["findings"], entry.get("file"))
        return data
    report, findings = check_reference(ref, options, passes=passes)
    kernel_file = getattr(report.build, "source_file", None) if report.build is not None else None
    return {"label": report.label, "kernel": report.kernel, "target": report.target, **report.device_fields(),
            "triton_version": report.triton_version, "min_severity": min_severity,
            "counts": {level: sum(1 for f in findings if f.severity == level)
                       for level in ("error", "warning", "info")},
            "kernel_file": str(kernel_file) if kernel_file else None,
            "findings": with_edits([f.as_dict() for f in at_least(findings, min_severity)],
                                   str(kernel_file) if kernel_file else None)}


def sweep(call: Call) -> dict[str, Any]:
    # the sweep's planner, runner and filters: loaded when this tool runs
    from ttinspect.sweep.output import known_names, refuse_unknown, sort_rows, to_json, values
    from ttinspect.sweep.run import plan, run_sweep
    from ttinspect.sweep.where import Where

    ref = call.reference()
    grid = call.get("grid", {})
    if not isinstance(grid, dict) or not grid:
        raise UsageError("`grid` needs at least one axis: {\"num_stages\": \"2..5\"}")
    axes_text = [f"{key}={','.join(str(v) for v in value) if isinstance(value, list) else value}"
                 for key, value in grid.items()]
    where, sort = call.get("where"), call.get("sort")
    most = min(int(call.get("max_points", 64)), MAX_POINTS)
    filt = Where(str(where)) if where else None
    parsed = call.options(with_arch=False)  # the targets are the sweep's own axis
    options = {"settings": dict(parsed.settings), "args": dict(parsed.args), "signature": parsed.signature,
               "config": parsed.config}
    axes, points = plan(ref, axes_text, text_or_none(call.get("arch")), options)
    if len(points) > most:
        raise UsageError(f"the grid has {len(points)} points, more than max_points={most}: narrow an axis, or "
                         f"raise max_points (at most {MAX_POINTS})")
    jobs = call.get("jobs")
    result = run_sweep(ref, axes, points, options, jobs=int(jobs) if jobs else None, progress=False)
    rows = result.rows
    if sort:
        refuse_unknown("sort", [str(sort).lstrip("-+")], rows)
    if filt is not None and any(not row.get("error") for row in rows):
        filt.check_names(known_names(rows))
        rows = [row for row in rows if filt(values(row))]
    if sort:
        rows = sort_rows(rows, str(sort))
    if result.exit_code and not result.interrupted:
        kinds = ", ".join(sorted({str(row.get("error_kind")) for row in result.rows}))
        every = "the only point" if len(result.rows) == 1 else f"all {len(result.rows)} points"
        raise Failed(f"{every} failed ({kinds}); the first: {result.rows[0]['error']}", result.exit_code)
    return json.loads(to_json(result, rows))


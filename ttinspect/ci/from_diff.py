"""`ttinspect diff A B` as a CIReport: one entry for the pair, one neutral note per changed fact.

A diff says what changed, not whether it is better: every change is NEUTRAL at level "note" (a gate
that decides regressions — spills went up — is `snapshot --check`'s job). Each result is pinned to B's
source file and `def` line (the side a pull request brings), so a code-scanning view can show it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ttinspect.ci.from_check import def_line_of, device_notes, entry_key, relative_file, ttinspect_version
from ttinspect.ci.model import NEUTRAL, CIReport, Entry, Result, Rule


def ci_from_diff(diff: Any, repo_root: Path | None, *, seconds: float | None = None) -> CIReport:
    a, b = diff.a, diff.b
    source = getattr(b.build, "source_file", None) if b.build is not None else None
    file = relative_file(source, repo_root)
    line = def_line_of(source, b.kernel)
    key = f"{entry_key(a)} vs {entry_key(b)}"
    results = tuple(Result(rule=_rule_id(change), level="note", status=NEUTRAL, entry=key, message=str(change),
                           detail=change.explanation, file=file, line=line)
                    for change in diff.changes)
    rules: dict[str, Rule] = {}
    for change in diff.changes:
        rules.setdefault(_rule_id(change), Rule(
            id=_rule_id(change), name=change.key, summary=f"{change.title} differs between the two kernels.",
            help="A fact of the compiled code that differs; the result's explanation says what it means."))
    entry = Entry(key=key, kernel=f"{a.label} vs {b.label}", target=_targets(a.target, b.target),
                  status="changed" if diff.changes else "ok", file=file, line=line, seconds=seconds,
                  device=" vs ".join(dict.fromkeys(d for d in (a.device, b.device) if d)) or None)
    versions = dict.fromkeys((str(a.triton_version), str(b.triton_version)))  # one, or "3.5.1 vs 3.9.0"
    return CIReport(command="diff", entries=(entry,), results=results, rules=tuple(rules.values()),
                    triton_version=" vs ".join(versions), ttinspect_version=ttinspect_version(),
                    notes=device_notes([a, b]) + _one_side_notes(diff))


def _rule_id(change: Any) -> str:
    return f"diff/{change.key}"


def _targets(a: str, b: str) -> str:
    return a if a == b else f"{a} vs {b}"


def _one_side_notes(diff: Any) -> tuple[str, ...]:
    """Across vendors, or between a Triton and a Gluon kernel, some facts exist on one side only: say how
    many, so their absence is not read as 'unchanged'."""
    ours, theirs = diff.one_side
    if not ours and not theirs:
        return ()
    return (f"{len(ours)} facts of {diff.a.label} and {len(theirs)} of {diff.b.label} exist for one side only "
            "(one vendor's, or one kernel language's) and are not compared",)

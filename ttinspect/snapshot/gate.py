"""`snapshot --check`: the committed snapshot against the kernels as they compile now, every change
explained (diff's explanations) and classed improved / regressed / neutral by the guard rules:

| guard | regressed when | improved when |
|---|---|---|
| spills | spills go up | they go down |
| pipeline_depth | the main loop's depth goes down, or becomes unknown | it goes up |
| tensor_core_path | the path is downgraded (tcgen05 > wgmma > mma.sync / mfma / wmma > none) | upgraded |
| occupancy | occupancy goes down | it goes up |
| shared_memory | the kernel no longer fits the target's shared memory | it fits again |

Findings (`ttinspect check`'s) are gated by fail-on, whatever the guard list says: a new finding at or
above fail-on is a regression, one below it is reported, one that goes away is an improvement (a finding
that only moved lines is the same finding). A regression of a fact not in `guard` is reported, as neutral.
A kernel that no longer compiles fails the gate; a new kernel fails it only through its findings at or
above fail-on; a removed one is listed. A finding that goes away while a guarded fact of its entry regressed
is not an improvement: its precondition went (TTI007 asks for TMA only where there is a wgmma to feed), so it
is reported as neutral. Levels: "error" only for what fails the gate; a new finding keeps its own level.
Budgets, tolerances and suppressions ([tool.ttinspect], snapshot/policy.py) are applied last.
"""

from __future__ import annotations

import re
from typing import Any

from ttinspect.ci.model import (ERROR, FINDING, IMPROVED, NEUTRAL, NEW, REGRESSED, REMOVED, CIReport, Entry, Result,
                        Rule, level_of)
from ttinspect.check.model import severity_rank
from ttinspect.snapshot.explain import TITLES, cause_fix, detail, message
from ttinspect.snapshot.origin import origin
from ttinspect.snapshot.policy import within_tolerance

_PATH_RANK = {"none": 0, "mma.sync": 1, "mfma": 1, "wmma": 1, "wgmma": 2, "tcgen05": 3}
RULES = {
    "spills": Rule("regression/spills", "spills-went-up", "Register spills went up",
                   "Registers spilled to local memory cost a round trip per use: see `ttinspect check` TTI003's fix."),
    "pipeline_depth": Rule("regression/pipeline-depth", "pipelining-lost", "The main loop's pipeline depth went down",
                           "Fewer loads in flight: check num_stages, and `ttinspect passes` for the pass that "
                           "changed."),
    "tensor_core_path": Rule("regression/tensor-core-path", "tensor-cores-downgraded",
                             "The tensor-core path was downgraded", "Check the dot's shapes, dtypes and num_warps."),
    "occupancy": Rule("regression/occupancy", "occupancy-went-down", "Occupancy went down",
                      "`ttinspect report` names the limiting resource (registers, shared memory, warps)."),
    "shared_memory": Rule("regression/shared-memory", "no-longer-fits", "The kernel no longer fits in shared memory",
                          "Lower num_stages or the block sizes: `ttinspect check` TTI006 gives numbers."),
    "registers": Rule("regression/registers", "registers-went-up", "Registers per thread went up",
                      "More registers per thread, fewer warps per SM: `ttinspect report` shows what holds them."),
    "changed": Rule("change", "fact-changed", "A fact changed", "Review the change; `--update` accepts it."),
    "compile": Rule("error/compile", "no-longer-compiles", "The kernel no longer compiles", "Fix the error shown."),
    "new": Rule("entry/new", "new-kernel", "A kernel entry is new", "`--update` adds it to the snapshot."),
    "removed": Rule("entry/removed", "removed-kernel", "A kernel entry is gone", "`--update` removes it."),
    "strict": Rule("entry/not-in-snapshot", "not-in-snapshot", "strict = true: the snapshot does not match the "
                   "library", "Run `ttinspect snapshot --check --update` and commit the snapshot's diff."),
}
# Facts another fact's line already says (occupancy names its limit and CTAs per SM; one loop's depth is the
# pipeline depth): shown on their own only when the fact that says them did not change.
_SAID_BY = {"occupancy_limit": "occupancy", "blocks_per_sm": "occupancy", "loop_depths": "pipeline_depth",
            "shared_buffers": "shared_memory"}
_GUARD_OF = {"fits": "shared_memory"}  # the guard a fact's regression belongs to



class _Side:
    """A snapshot entry's facts where diff's explainers expect a Report (`report["shared_buffers"]`)."""

    def __init__(self, facts: dict[str, Any]):
        self._facts = facts

    def __getitem__(self, key: str) -> Any:
        value = self._facts.get(key)
        return tuple(value) if isinstance(value, list) else value


def _explain(key: str, before: dict, after: dict, old: Any, new: Any) -> str:
    """diff's explanation of the change (compare/explain.py), for the facts it explains."""
    from ttinspect.compare.explain import explain_change  # the diff machinery loads only for a diff

    default = f"{TITLES.get(key, key)} changed"
    try:
        return explain_change(key, _Side(before), _Side(after), _frozen(old), _frozen(new), default)
    except Exception:  # an explainer that needs a fact the snapshot does not keep: the plain change
        return default


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _frozen(v)) for k, v in value.items())
    return value


def classify(key: str, old: Any, new: Any, guard: tuple[str, ...] = ()) -> str:
    """IMPROVED, REGRESSED or NEUTRAL for one fact's change (before the guard list is applied); registers only
    where `guard` names them (a register more is seldom a regression on its own)."""
    if key == "registers" and "registers" not in guard:
        return NEUTRAL
    if key in ("spills", "registers") and isinstance(old, int) and isinstance(new, int):
        return REGRESSED if new > old else IMPROVED
    if key == "pipeline_depth":
        if isinstance(old, int) and new is None:
            return REGRESSED
        if isinstance(old, int) and isinstance(new, int):
            return REGRESSED if new < old else IMPROVED
    if key == "tensor_core_path" and old in _PATH_RANK and new in _PATH_RANK:
        return REGRESSED if _PATH_RANK[new] < _PATH_RANK[old] else IMPROVED if _PATH_RANK[new] > _PATH_RANK[old] \
            else NEUTRAL
    if key == "occupancy" and percent(old) is not None and percent(new) is not None:
        return REGRESSED if percent(new) < percent(old) else IMPROVED  # type: ignore[operator]
    if key == "fits" and isinstance(old, bool) and isinstance(new, bool):
        return REGRESSED if old and not new else IMPROVED
    return NEUTRAL


def percent(value: Any) -> float | None:
    """Occupancy as a fraction: the fact reads "62%" (or a fraction where a caller gave one)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value.endswith("%"):
        try:
            return float(value[:-1]) / 100
        except ValueError:
            return None
    return None


def gate(committed: dict[str, Any], current: dict[str, dict[str, Any]], *, fail_on: str, guard: tuple[str, ...],
         triton_version: str = "", ttinspect_version: str = "", tolerance: dict[str, int] | None = None
         ) -> CIReport:
    old_entries: dict[str, dict] = committed.get("entries", {})
    entries, results = [], []
    rules_used: dict[str, Rule] = {}

    def add(rule_key: str, slug: str | None = None, **fields) -> None:
        if rule_key in RULES:
            rule = RULES[rule_key]
        else:  # a check finding's id
            from ttinspect.ci.from_check import finding_rule  # the check rules load only when checking

            rule = finding_rule(rule_key, slug)
        rules_used[rule.id] = rule
        results.append(Result(rule=rule.id, **fields))

    broken = {key.rpartition(":*@")[0] for key, row in current.items() if ":*@" in key}
    for key in sorted(set(old_entries) | set(current)):
        if key in old_entries and key not in current and key.rpartition("@")[0].rpartition(":")[0] in broken:
            continue  # its file no longer loads: said once, by the file's own failing entry
        old, new = old_entries.get(key), current.get(key)
        where = new if new and not new.get("error") else old or {}
        file, line = where.get("file"), where.get("line")
        kernel, _, target = key.rpartition("@")
        if new is None:
            add("removed", level="note", status=REMOVED, entry=key, message=f"{key} is no longer in the library",
                file=file, line=line)
            entries.append(Entry(key, kernel, target, "removed", file, line))
            continue
        if new.get("error"):
            if file is None:  # a file that no longer loads: its examples file, at the line its error names
                file, line = error_location(key, new["error"])
            add("compile", level="error", status=ERROR, entry=key, message=new["error"], file=file, line=line)
            entries.append(Entry(key, kernel, target, "failed", file, line, error=new["error"]))
            continue
        statuses = []
        if old is None or not isinstance(old.get("facts"), dict):  # absent, or not a whole entry: new
            add("new", level="note", status=NEW, entry=key, message=f"{key} is new", file=file, line=line)
            statuses.append(NEW)
            old = {"facts": {}, "findings": []}
        else:
            statuses += _fact_changes(key, old, new, guard, add, tolerance or {})
        statuses += _finding_changes(key, old, new, fail_on, add, file, REGRESSED in statuses)
        status = ("regressed" if REGRESSED in statuses else "new" if NEW in statuses
                  else "improved" if IMPROVED in statuses else "changed" if statuses else "ok")
        entries.append(Entry(key, kernel, target, status, file, line, new.get("seconds")))
    return CIReport("snapshot --check", tuple(entries), tuple(results), tuple(rules_used.values()), triton_version,
                    ttinspect_version)


def error_location(key: str, error: str) -> tuple[str, int | None]:
    """Where an entry that failed is shown: its examples file (the key's FILE), at the line of that file its error
    names — first or anywhere after (`mylib/ops/broken.py:3: SyntaxError`, `importing mylib/ops/n.py raised
    ModuleNotFoundError: ... (mylib/ops/n.py:4; ...)`): the import that broke is the line the pull request changed —
    else its first line."""
    file = key.partition("#")[0].rpartition("@")[0].rpartition(":")[0]
    for found in re.finditer(r"(?:^|[\s(\[])((?:[^\s:()\[\]]*/)?[^\s:()\[\]/]+):(\d+)\b", error):
        path, number = found[1], int(found[2])
        if number > 0 and (path == file or path.endswith("/" + file)):
            return file, number
    return file, 1


def _fact_changes(key: str, old: dict, new: dict, guard: tuple[str, ...], add, tolerance: dict[str, int]
                  ) -> list[str]:
    statuses = []
    before, after = old.get("facts") or {}, new.get("facts") or {}
    target = key.partition("#")[0].rpartition("@")[2]
    changed = {fact for fact in set(before) | set(after) if before.get(fact) != after.get(fact)}
    for fact in sorted(changed):
        if fact in ("shared_buffers", "block_sizes") and fact in before and fact in after \
                and before[fact] == after[fact]:
            continue
        if _SAID_BY.get(fact) in changed and (fact != "loop_depths" or len(after.get(fact) or ()) <= 1):
            continue  # said on the line of the fact that explains it
        was, now = before.get(fact), after.get(fact)
        status = classify(fact, was, now, guard)
        guarded = _GUARD_OF.get(fact, fact) in guard
        if status == REGRESSED and not guarded:
            status = NEUTRAL
        said = message(fact, was, now, target, after, new.get("evidence"))
        allowed = within_tolerance(fact, was, now, tolerance, target) if status == REGRESSED else None
        if allowed is not None:  # [tool.ttinspect.tolerance]: a change this small passes, and says so
            status, said = NEUTRAL, f"{said} (within the tolerance of {allowed})"
        explanation = detail(fact, before, after, was, now, target, new.get("evidence") or {},
                             _explain(fact, before, after, was, now))
        rule = _GUARD_OF.get(fact, fact) if status != NEUTRAL and _GUARD_OF.get(fact, fact) in RULES else "changed"
        place = origin(fact, old, new)  # the line that changed it, so the annotation lands in the pull request's diff
        fix = (cause_fix(fact, after, new.get("evidence") or {}, new.get("findings") or []) or RULES[rule].help) \
            if status == REGRESSED else ""
        add(rule, level="error" if status == REGRESSED else "note", status=status, entry=key,
            message=said, detail=f"{explanation.rstrip('.')}. Where: {place.said}.".lstrip(". "),
            fix=fix, file=place.file, line=place.line)
        statuses.append(status)
    return statuses


def _finding_changes(key: str, old: dict, new: dict, fail_on: str, add, file, regressed: bool) -> list[str]:
    """New findings (a regression at or above fail-on, at their own level), and findings gone: an improvement,
    unless a guarded fact of the entry regressed — then the finding's precondition went with it (a kernel that
    lost its tensor cores no longer gets TMA advice), which is no improvement."""
    statuses = []
    was_ids = {f["id"] for f in old.get("findings") or []}
    now_ids = {f["id"] for f in new.get("findings") or []}
    for finding in new.get("findings") or []:
        if finding["id"] in was_ids:  # the same finding, perhaps at another line: not new
            continue
        failing = severity_rank(finding["severity"]) >= severity_rank(fail_on)
        status = REGRESSED if failing else FINDING
        add(finding["id"], finding.get("slug"), level=level_of(finding["severity"]), status=status, entry=key,
            message=f"new {finding['severity']} {finding['id']}: {finding['title']}", fix=finding.get("fix", ""),
            file=file, line=finding.get("line") or new.get("line"))
        statuses.append(status)
    for finding in old.get("findings") or []:
        if finding["id"] in now_ids:
            continue
        if regressed:
            add(finding["id"], finding.get("slug"), level="note", status=NEUTRAL, entry=key,
                message=f"{finding['id']} no longer applies: {finding['title']}",
                detail="its precondition went with the regression above, so this is no improvement",
                file=file, line=new.get("line"))
            statuses.append(NEUTRAL)
            continue
        add(finding["id"], finding.get("slug"), level="note", status=IMPROVED, entry=key,
            message=f"{finding['id']} is gone: {finding['title']}", file=file, line=new.get("line"))
        statuses.append(IMPROVED)
    return statuses

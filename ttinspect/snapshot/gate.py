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
above fail-on; a removed one is listed.
"""

from __future__ import annotations

from typing import Any

from ttinspect.ci.model import (ERROR, FINDING, IMPROVED, NEUTRAL, NEW, REGRESSED, REMOVED, CIReport, Entry, Result,
                        Rule, level_of)
from ttinspect.check.model import severity_rank
from ttinspect.facts.model import format_value

_PATH_RANK = {"none": 0, "mma.sync": 1, "mfma": 1, "wmma": 1, "wgmma": 2, "tcgen05": 3}
_TITLES = {"spills": "spills", "pipeline_depth": "pipeline depth", "tensor_core_path": "tensor-core path",
           "occupancy": "occupancy", "shared_memory": "shared memory", "fits": "fits the shared memory",
           "registers": "registers per thread"}
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
    "changed": Rule("change", "fact-changed", "A fact changed", "Review the change; `--update` accepts it."),
    "compile": Rule("error/compile", "no-longer-compiles", "The kernel no longer compiles", "Fix the error shown."),
    "new": Rule("entry/new", "new-kernel", "A kernel entry is new", "`--update` adds it to the snapshot."),
    "removed": Rule("entry/removed", "removed-kernel", "A kernel entry is gone", "`--update` removes it."),
}


class _Side:
    """A snapshot entry's facts where diff's explainers expect a Report (`report["shared_buffers"]`)."""

    def __init__(self, facts: dict[str, Any]):
        self._facts = facts

    def __getitem__(self, key: str) -> Any:
        value = self._facts.get(key)
        return tuple(value) if isinstance(value, list) else value


def _explain(key: str, before: dict, after: dict, old: Any, new: Any) -> str:
    from ttinspect.compare.explain import explain_change  # the diff machinery loads only for a diff

    default = f"{_TITLES.get(key, key)} changed"
    try:
        return explain_change(key, _Side(before), _Side(after), _frozen(old), _frozen(new), default)
    except Exception:  # an explainer that needs a fact the snapshot does not keep: the plain change
        return f"{_text(old)} → {_text(new)}: {default}"


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _frozen(v)) for k, v in value.items())
    return value


def _text(value: Any) -> str:
    return "unknown" if value is None else format_value(_frozen(value))


def classify(key: str, old: Any, new: Any) -> str:
    """IMPROVED, REGRESSED or NEUTRAL for one fact's change (before the guard list is applied)."""
    if key == "spills" and isinstance(old, int) and isinstance(new, int):
        return REGRESSED if new > old else IMPROVED
    if key == "pipeline_depth":
        if isinstance(old, int) and new is None:
            return REGRESSED
        if isinstance(old, int) and isinstance(new, int):
            return REGRESSED if new < old else IMPROVED
    if key == "tensor_core_path" and old in _PATH_RANK and new in _PATH_RANK:
        return REGRESSED if _PATH_RANK[new] < _PATH_RANK[old] else IMPROVED if _PATH_RANK[new] > _PATH_RANK[old] \
            else NEUTRAL
    if key == "occupancy" and _percent(old) is not None and _percent(new) is not None:
        return REGRESSED if _percent(new) < _percent(old) else IMPROVED  # type: ignore[operator]
    if key == "fits" and isinstance(old, bool) and isinstance(new, bool):
        return REGRESSED if old and not new else IMPROVED
    return NEUTRAL


def _percent(value: Any) -> float | None:
    """Occupancy as a number: the fact reads "62%" (or a fraction where a caller gave one)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value.endswith("%"):
        try:
            return float(value[:-1]) / 100
        except ValueError:
            return None
    return None


_GUARD_OF = {"fits": "shared_memory"}  # the guard a fact's regression belongs to


def gate(committed: dict[str, Any], current: dict[str, dict[str, Any]], *, fail_on: str, guard: tuple[str, ...],
         triton_version: str = "") -> CIReport:
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
            add("removed", level="note", status=REMOVED, entry=key, message=f"{key} is no longer in the library")
            entries.append(Entry(key, kernel, target, "removed", file, line))
            continue
        if new.get("error"):
            add("compile", level="error", status=ERROR, entry=key, message=new["error"], file=file, line=line)
            entries.append(Entry(key, kernel, target, "failed", file, line, error=new["error"]))
            continue
        statuses = []
        if old is None or not isinstance(old.get("facts"), dict):  # absent, or not a whole entry: new
            add("new", level="note", status=NEW, entry=key, message=f"{key} is new", file=file, line=line)
            statuses.append(NEW)
            old = {"facts": {}, "findings": []}
        else:
            statuses += _fact_changes(key, old, new, guard, add)
        statuses += _finding_changes(key, old, new, fail_on, add, file)
        status = ("regressed" if REGRESSED in statuses else "new" if NEW in statuses
                  else "improved" if IMPROVED in statuses else "changed" if statuses else "ok")
        entries.append(Entry(key, kernel, target, status, file, line, new.get("seconds"), device=new.get("device")))
    return CIReport("snapshot --check", tuple(entries), tuple(results), tuple(rules_used.values()), triton_version)


def _fact_changes(key: str, old: dict, new: dict, guard: tuple[str, ...], add) -> list[str]:
    statuses = []
    before, after = old.get("facts") or {}, new.get("facts") or {}
    for fact in sorted(set(before) | set(after)):
        if fact in ("shared_buffers", "loop_depths", "block_sizes") and fact in before and fact in after \
                and before[fact] == after[fact]:
            continue
        was, now = before.get(fact), after.get(fact)
        if was == now:
            continue
        status = classify(fact, was, now)
        guarded = _GUARD_OF.get(fact, fact) in guard
        if status == REGRESSED and not guarded:
            status = NEUTRAL
        explanation = _explain(fact, before, after, was, now)
        rule = _GUARD_OF.get(fact, fact) if status != NEUTRAL and _GUARD_OF.get(fact, fact) in RULES else "changed"
        add(rule, level="error" if status == REGRESSED else "note", status=status, entry=key,
            message=f"{_TITLES.get(fact, fact)}: {_text(was)} → {_text(now)} on {key.rpartition('@')[2]}",
            detail=explanation, fix=RULES[rule].help if status == REGRESSED else "", file=new.get("file"),
            line=new.get("line"))
        statuses.append(status)
    return statuses


def _finding_changes(key: str, old: dict, new: dict, fail_on: str, add, file) -> list[str]:
    statuses = []
    was_ids = {f["id"] for f in old.get("findings") or []}
    now_ids = {f["id"] for f in new.get("findings") or []}
    for finding in new.get("findings") or []:
        if finding["id"] in was_ids:  # the same finding, perhaps at another line: not new
            continue
        failing = severity_rank(finding["severity"]) >= severity_rank(fail_on)
        status = REGRESSED if failing else FINDING
        add(finding["id"], finding.get("slug"), level=level_of(finding["severity"]) if not failing else "error",
            status=status, entry=key,
            message=f"new {finding['severity']} {finding['id']}: {finding['title']}", fix=finding.get("fix", ""),
            file=file, line=finding.get("line") or new.get("line"))
        statuses.append(status)
    for finding in old.get("findings") or []:
        if finding["id"] not in now_ids:
            add(finding["id"], finding.get("slug"), level="note", status=IMPROVED, entry=key,
                message=f"{finding['id']} is gone: {finding['title']}", file=file, line=new.get("line"))
            statuses.append(IMPROVED)
    return statuses

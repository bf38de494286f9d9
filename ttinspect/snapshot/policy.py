"""A library's own limits for the gate, from `[tool.ttinspect]`: budgets (absolute limits per entry or glob),
tolerances (how big a guarded change may be and still pass), and suppressions (`[[tool.ttinspect.allow]]`: a
result that does not fail the gate, with a required reason and an expiry).

    [[tool.ttinspect.budget]]
    entries = "mylib/ops/mm.py:*@sm_90"   # a glob over entry keys (default "*": every entry)
    registers = 128                        # per thread, at most
    spill-bytes = 0                        # per thread, at most
    occupancy = 25                         # percent, at least
    shared = 98304                         # bytes per CTA, at most

    [tool.ttinspect.tolerance]
    registers = 4                          # a rise of up to 4 registers passes (with guard "registers")
    spill-bytes = 64
    occupancy = 5                          # percentage points
    shared = 1024

    [[tool.ttinspect.allow]]
    entries = "mylib/ops/mm.py:big@*"
    rule = "regression/spills"             # a rule id as the reports cite it (TTI003, budget/registers), or "*"
    reason = "spills accepted until the split-K rewrite (#123)"
    expires = 2026-12-31                   # a TOML date: after it, the result fails again (and says so)

The file is the repository's, read as untrusted input like the rest of [tool.ttinspect] (config.py): every value
is checked here, and a bad one is one line naming pyproject.toml:LINE.
"""

from __future__ import annotations

import datetime
import fnmatch
from dataclasses import dataclass, field, replace
from typing import Any

from ttinspect.ci.model import ERROR, REGRESSED, SUPPRESSED, Result, Rule
from ttinspect.errors import UsageError

BUDGET_KEYS = ("registers", "spill-bytes", "occupancy", "shared")  # in the user's units
_AT_LEAST = {"occupancy"}  # the others are upper limits


@dataclass(frozen=True)
class Budget:
    entries: str
    limits: tuple[tuple[str, int], ...]
    where: str  # pyproject.toml:LINE, for the message


@dataclass(frozen=True)
class Allow:
    entries: str
    rule: str
    reason: str
    expires: datetime.date
    where: str


@dataclass(frozen=True)
class Policy:
    budgets: tuple[Budget, ...] = ()
    tolerance: dict[str, int] = field(default_factory=dict)
    allow: tuple[Allow, ...] = ()


def read_policy(table: dict[str, Any], text: str, source: str) -> Policy:
    """`budget`, `tolerance` and `allow` of [tool.ttinspect] (`text`: pyproject.toml's, for the lines)."""
    lines = _Lines(text, source)
    budgets = tuple(_budget(item, lines.of("budget", i)) for i, item in enumerate(_tables(table, "budget", lines)))
    tolerance = _tolerance(table.get("tolerance"), lines)
    allow = tuple(_allow(item, lines.of("allow", i)) for i, item in enumerate(_tables(table, "allow", lines)))
    return Policy(budgets, tolerance, allow)


class _Lines:
    """pyproject.toml:LINE of the n-th `[[tool.ttinspect.NAME]]` table and of a key in it (tomllib keeps no
    positions): the header's line, or the key's within that table."""

    def __init__(self, text: str, source: str):
        self.lines, self.source = text.splitlines(), source

    def of(self, name: str, index: int):
        header = self._header(name, index)

        def at(key: str | None = None) -> str:
            if header is None:
                return self.source
            if key is not None:
                for number in range(header + 1, len(self.lines) + 1):
                    stripped = self.lines[number - 1].strip()
                    if stripped.startswith("["):
                        break
                    if stripped.partition("=")[0].strip().strip('"') == key:
                        return f"{self.source}:{number}"
            return f"{self.source}:{header}"
        return at

    def _header(self, name: str, index: int) -> int | None:
        seen = -1
        for number, line in enumerate(self.lines, 1):
            compact = line.split("#", 1)[0].replace(" ", "").replace('"', "")
            if compact in (f"[[tool.ttinspect.{name}]]", f"[tool.ttinspect.{name}]"):
                seen += 1
                if seen == index:
                    return number
        return None


def _tables(table: dict[str, Any], name: str, lines: _Lines) -> list[dict[str, Any]]:
    value = table.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise UsageError(f"{lines.of(name, 0)()}: [tool.ttinspect] {name} must be tables, written "
                         f"[[tool.ttinspect.{name}]] (docs/ci.md)")
    return value


def _glob(item: dict[str, Any], at) -> str:
    pattern = item.get("entries", "*")
    if not isinstance(pattern, str) or not pattern.strip() or len(pattern) > 1000 \
            or any(ord(c) < 32 or ord(c) == 127 for c in pattern):
        raise UsageError(f"{at('entries')}: entries = {_shown(pattern)}: a glob over entry keys, e.g. "
                         "\"mylib/ops/mm.py:*@sm_90\"")
    return pattern


def _number(value: Any, key: str, at, top: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0 or (top is not None and value > top):
        bound = f"0 to {top}" if top is not None else "0 or more"
        raise UsageError(f"{at(key)}: {key} = {_shown(value)}: a whole number, {bound}")
    return value


def _budget(item: dict[str, Any], at) -> Budget:
    unknown = [k for k in item if k not in ("entries", *BUDGET_KEYS)]
    if unknown:
        raise UsageError(f"{at(unknown[0])}: [[tool.ttinspect.budget]] has unknown key {_shown(unknown[0])}; keys: "
                         f"entries, {', '.join(BUDGET_KEYS)}")
    limits = tuple((key, _number(item[key], key, at, 100 if key == "occupancy" else 10**9))
                   for key in BUDGET_KEYS if key in item)
    if not limits:
        raise UsageError(f"{at()}: [[tool.ttinspect.budget]] sets no limit; one of {', '.join(BUDGET_KEYS)}")
    return Budget(_glob(item, at), limits, at())


def _tolerance(value: Any, lines: _Lines) -> dict[str, int]:
    at = lines.of("tolerance", 0)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise UsageError(f"{at()}: [tool.ttinspect] tolerance must be a table: [tool.ttinspect.tolerance]")
    unknown = [k for k in value if k not in BUDGET_KEYS]
    if unknown:
        raise UsageError(f"{at(unknown[0])}: [tool.ttinspect.tolerance] has unknown key {_shown(unknown[0])}; keys: "
                         f"{', '.join(BUDGET_KEYS)}")
    return {key: _number(number, key, at, 100 if key == "occupancy" else 10**9) for key, number in value.items()}


def _allow(item: dict[str, Any], at) -> Allow:
    unknown = [k for k in item if k not in ("entries", "rule", "reason", "expires")]
    if unknown:
        raise UsageError(f"{at(unknown[0])}: [[tool.ttinspect.allow]] has unknown key {_shown(unknown[0])}; keys: "
                         "entries, rule, reason, expires")
    rule, reason, expires = item.get("rule", "*"), item.get("reason"), item.get("expires")
    if not isinstance(rule, str) or not rule.strip() or len(rule) > 200 or not rule.isprintable():
        raise UsageError(f"{at('rule')}: rule = {_shown(rule)}: a rule id as the reports cite it "
                         "(regression/spills, TTI003, budget/registers) or \"*\"")
    if not isinstance(reason, str) or not reason.strip() or len(reason) > 1000 \
            or any(ord(c) < 32 or ord(c) == 127 for c in reason):
        raise UsageError(f"{at('reason') if 'reason' in item else at()}: [[tool.ttinspect.allow]] needs a reason = "
                         "\"...\": why the result is accepted (one line), for whoever reads the report")
    if isinstance(expires, datetime.datetime) or not isinstance(expires, datetime.date):
        raise UsageError(f"{at('expires') if 'expires' in item else at()}: [[tool.ttinspect.allow]] needs expires = "
                         f"YYYY-MM-DD (a TOML date, unquoted), got {_shown(expires)}: a suppression ends")
    return Allow(_glob(item, at), rule.strip(), " ".join(reason.split()), expires, at())


def matches(pattern: str, key: str) -> bool:
    return fnmatch.fnmatchcase(key, pattern)


def budget_value(key: str, facts: dict[str, Any], target: str) -> int | None:
    """The entry's value in the budget's unit (None: the fact is not known for this entry)."""
    if key == "registers":
        value = facts.get("registers")
    elif key == "spill-bytes":
        spills = facts.get("spills")  # NVIDIA: (stack + local) / 4, in 4-byte words; AMD: spilled VGPRs
        value = None if not isinstance(spills, int) else spills * 4 if not target.startswith("gfx") else None
    elif key == "occupancy":
        text = facts.get("occupancy")
        value = int(text[:-1]) if isinstance(text, str) and text.endswith("%") and text[:-1].isdigit() else None
    else:
        value = facts.get("shared_memory")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def over_budget(key: str, value: int, limit: int) -> bool:
    return value < limit if key in _AT_LEAST else value > limit


UNITS = {"registers": " per thread", "spill-bytes": " B per thread", "occupancy": "%", "shared": " B per CTA"}
# the tolerance key of a guarded fact, and how its change is measured in that unit
TOLERATED = {"registers": "registers", "spills": "spill-bytes", "occupancy": "occupancy", "shared_memory": "shared"}


def within_tolerance(fact: str, was: Any, now: Any, tolerance: dict[str, int], target: str) -> int | None:
    """The tolerance a regression of `fact` stays within (None: it does not, or none is set)."""
    key = TOLERATED.get(fact)
    if key is None or key not in tolerance:
        return None
    old, new = budget_value(key, _as_facts(fact, was), target), budget_value(key, _as_facts(fact, now), target)
    if old is None or new is None:
        return None
    return tolerance[key] if abs(new - old) <= tolerance[key] else None


def _as_facts(fact: str, value: Any) -> dict[str, Any]:
    return {fact: value}


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


BUDGET_RULE = "budget/{}"


def apply(report, current: dict[str, dict[str, Any]], policy: Policy, today: datetime.date):
    """The report with the budgets' results added and the allowed results suppressed; each entry's status
    again from what is left (a suppressed regression fails nothing)."""
    results = list(report.results)
    rules = {rule.id: rule for rule in report.rules}
    for entry in report.entries:
        row = current.get(entry.key)
        if not row or row.get("error") or not isinstance(row.get("facts"), dict):
            continue
        for budget in policy.budgets:
            if not matches(budget.entries, entry.key):
                continue
            for key, limit in budget.limits:
                value = budget_value(key, row["facts"], entry.target)
                if value is None or not over_budget(key, value, limit):
                    continue
                rule = BUDGET_RULE.format(key)
                rules.setdefault(rule, Rule(rule, f"over-{key}-budget", f"Over the library's {key} budget",
                                            "Bring it within the budget, or change the budget in pyproject.toml."))
                side, bound = ("under", "at least") if key in _AT_LEAST else ("over", "at most")
                said = (f"{key}: {value}{UNITS[key]}, {side} the budget of {bound} {limit}{UNITS[key]} "
                        f"({budget.where}) on {entry.target}")
                results.append(Result(rule, "error", REGRESSED, entry.key, said, fix=rules[rule].help,
                                      file=entry.file, line=entry.line))
    notes = list(report.notes)
    for expired in policy.allow:
        if expired.expires < today:
            notes.append(f"{expired.where}: the allow for {expired.rule} on {expired.entries} expired on "
                         f"{expired.expires.isoformat()}: its results fail the gate again")
    active = [a for a in policy.allow if a.expires >= today]
    kept = []
    for result in results:
        allow: Allow | None = next((a for a in active if result.status == REGRESSED
                                    and matches(a.entries, result.entry) and (a.rule == "*" or a.rule == result.rule)),
                                   None)
        kept.append(result if allow is None else replace(
            result, status=SUPPRESSED, suppressed=f"{allow.reason} (until {allow.expires.isoformat()}, "
                                                  f"{allow.where})"))
    entries = tuple(_restatus(entry, [r for r in kept if r.entry == entry.key]) for entry in report.entries)
    return replace(report, results=tuple(kept), rules=tuple(rules.values()), entries=entries, notes=tuple(notes))


def _restatus(entry, results):
    if entry.status == "failed" or any(r.status == ERROR for r in results):
        return entry
    if any(r.status == REGRESSED for r in results):
        return replace(entry, status="regressed")
    if entry.status == "regressed":  # every regression it had is suppressed
        return replace(entry, status="changed")
    return entry

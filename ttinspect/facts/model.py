"""The one result type of every fact extractor: a named value with its meaning, or a reason it is unknown.

A fact that cannot be had is `value=None` with `unknown` saying why — never a guess. Facts that do not
apply to a kernel (no loop, no tensor cores) say so in `unknown` as well ("not applicable: ...").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

# Groups, in the order doc 003 presents them.
GROUPS = ("configuration", "pipeline", "warp specialization", "memory traffic", "tensor cores",
          "registers & occupancy", "program order",
          "sass (what runs)", "ir")


def group_order(group: str) -> tuple[int, int]:
    """Where a group sorts: GROUPS in order, then the per-loop groups ("loop 2 · line 35 · ...") by loop."""
    if group in GROUPS:
        return (GROUPS.index(group), 0)
    words = group.split()
    return (len(GROUPS), int(words[1]) if len(words) > 1 and words[1].isdigit() else 0)


@dataclass(frozen=True)
class Fact:
    key: str  # stable identifier, e.g. "pipeline_depth"; the API and JSON use it
    title: str  # human label, e.g. "pipeline depth (num_stages)"
    group: str  # one of GROUPS, or a loop's group: "loop 2 · line 35 · K loop" (facts/loops.py)
    value: Any  # int, str, bool, tuple or a mapping rendered as tuple of pairs; None when unknown
    explanation: str  # one correct line: what the value means
    source: str  # where it was read: "ptx", "ttir", "ttgir", "metadata", "ptx main loop"
    unknown: str | None = None  # why value is None

    def __repr__(self) -> str:  # `Fact(pipeline_depth=4)`: the dataclass's own would print every field
        return f"Fact({self.key}={value_text(self.value)})"

    def __str__(self) -> str:  # `pipeline depth (num_stages): 4`
        return f"{self.title}: {self.display()}"

    @property
    def known(self) -> bool:
        return self.value is not None

    def display(self) -> str:
        if self.value is None:
            if self.unknown and self.unknown.startswith("not applicable"):
                return "n/a" + self.unknown[len("not applicable"):]
            return f"unknown: {self.unknown}" if self.unknown else "unknown"
        return format_value(self.value)

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "title": self.title, "group": self.group, "value": jsonable(self.value),
                "explanation": self.explanation, "source": self.source, "unknown": self.unknown}


class Counts(tuple):
    """(item, count) pairs — a multiset; shown as `item×count`. Equal to the plain tuple."""


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        if value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
            sep = "×" if isinstance(value, Counts) else "="
            return ", ".join(f"{k}{sep}{format_value(v)}" for k, v in value)
        return ", ".join(format_value(v) for v in value) if value else "none"
    return str(value)


def value_text(value: Any) -> str:
    """A fact's value as plain text; None (unknown, whatever the reason) as `unknown`."""
    return "unknown" if value is None else format_value(value)


def _pairs(value: Any) -> bool:
    """A value that is a mapping rendered as a tuple of (name, value) pairs (a Counts, block sizes)."""
    return isinstance(value, tuple) and (isinstance(value, Counts) or all(
        isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) for v in value))


def change_text(before: Any, after: Any) -> str:
    """`old → new`; for two mappings only the entries that differ, as `name old → new, ...` (a name one
    side lacks is 0 in a multiset, else `absent` there)."""
    if _pairs(before) and _pairs(after) and (before or after):
        old, new = dict(before), dict(after)
        missing = 0 if isinstance(before, Counts) or isinstance(after, Counts) else None
        changed = [(k, old.get(k, missing), new.get(k, missing)) for k in dict.fromkeys([*old, *new])
                   if old.get(k, missing) != new.get(k, missing)]
        if changed:  # else the same entries in another order: the whole values say so
            return ", ".join(f"{k} {_entry(a)} → {_entry(b)}" for k, a, b in changed)
    return f"{value_text(before)} → {value_text(after)}"


def _entry(value: Any) -> str:
    return "absent" if value is None else format_value(value)


def jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        if isinstance(value, Counts) or value and all(  # an empty multiset is still an object: {}
                isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) for v in value):
            return {k: jsonable(v) for k, v in value}
        return [jsonable(v) for v in value]
    return value


def counts(items: Iterable[str]) -> tuple[tuple[str, int], ...]:
    """A sorted multiset as a tuple of (item, count) pairs — hashable, comparable, JSON as an object."""
    tally: dict[str, int] = {}
    for item in items:
        tally[item] = tally.get(item, 0) + 1
    return Counts(sorted(tally.items()))


def known(key: str, title: str, group: str, value: Any, explanation: str, source: str) -> Fact:
    return Fact(key, title, group, value, explanation, source)


def unknown(key: str, title: str, group: str, reason: str, explanation: str, source: str) -> Fact:
    return Fact(key, title, group, None, explanation, source, unknown=reason)


def loop_fact(key: str, title: str, group: str, value: Any, explanation: str, source: str, *, has_loop: bool,
              loop_reason: str) -> Fact:
    """A fact about the kernel's main loop: `value` where there is one; else not applicable, for
    `loop_reason` (why there is no main loop)."""
    if has_loop:
        return known(key, title, group, value, explanation, source)
    return unknown(key, title, group, f"not applicable: {loop_reason}", explanation, source)

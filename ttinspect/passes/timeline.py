"""The pass history of one compile: one row per pass, with what it changed in the text, the ops and the
snapshot facts, computed from the split dump (dump.py) and kept as JSON (a warm run reads only that).

A snapshot is printed before each pass, so the module a pass left is the next snapshot (or, for the last
pass of a stage, what the stage left: compile/pass_dumps.py records it). Function-scope dumps (a canonicalizer the
inliner runs on each function, a function pass such as canonicalize-llvm-ir) are folded into the
module-level pass they run within or after: they print one function, not the module.
"""

from __future__ import annotations

import difflib
import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

from ttinspect.dialects.normalize import for_pass_diff
from ttinspect.passes.dump import Dump, split_dump
from ttinspect.passes.snapshot_facts import FACT_KEYS, FACTS, op_counts, snapshot_facts, title

from ttinspect.passes.names import SCHEMA  # noqa: E402,F401  (the timeline's layout version; store.py names files by it)


def _digest(lines: list[str]) -> str:
    """A snapshot's identity, over its normalized lines: two snapshots that differ only in locations
    and SSA numbering have the same."""
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class FactChange:
    key: str
    before: Any  # JSON values; None: absent
    after: Any

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "title": title(self.key), "before": self.before, "after": self.after}


@dataclass(frozen=True)
class PassStep:
    """A step a pass printed of itself (the pipeliner's LowerLoops, ExpandLoops): ops and facts only —
    it prints in another form (layouts inline, values numbered), so its lines do not compare."""

    name: str
    ops_added: dict[str, int]
    ops_removed: dict[str, int]
    changed_facts: tuple[FactChange, ...]


@dataclass(frozen=True)
class PassRow:
    index: int  # 1-based, over every pass that ran (changed or not)
    name: str  # the C++ name: "TritonGPUPipeline"
    argument: str  # the pass's command-line name: "tritongpu-pipeline"
    stage: str  # ttir / ttgir / llir ("?" when the dump carries no stage markers and the text says nothing)
    lines_added: int | None  # normalized lines (locations dropped, SSA names reduced); None: after unknown
    lines_removed: int | None
    ops_added: dict[str, int]
    ops_removed: dict[str, int]
    changed_facts: tuple[FactChange, ...]
    label: str = ""  # "canonicalize#2" when the pass runs more than once, else the argument
    options: str = ""
    scope: str = "builtin.module"
    nested: tuple[str, ...] = ()  # function-scope passes folded into this row
    steps: tuple[PassStep, ...] = ()
    changed: bool | None = None  # None: the module it left was not printed
    facts_after: dict[str, Any] = field(default_factory=dict, repr=False)
    after_digest: str | None = None

    @property
    def folded(self) -> str:
        """The function-scope passes folded into this row, by name: "canonicalize-llvm-ir",
        "canonicalize×5" (one per function it ran on); "" when none."""
        counts = Counter(entry.split(" (@", 1)[0] for entry in self.nested)
        return ", ".join(name if n == 1 else f"{name}×{n}" for name, n in counts.items())

    @property
    def title(self) -> str:
        """The row's name as tables show it: the label, and the function passes folded into it
        ("initialize-ws-cluster-barriers + canonicalize-llvm-ir"): their changes are in this row's counts."""
        return f"{self.label or self.argument} + {self.folded}" if self.nested else (self.label or self.argument)

    def as_dict(self) -> dict[str, Any]:
        return {"index": self.index, "name": self.name, "argument": self.argument, "label": self.label,
                "options": self.options, "stage": self.stage, "scope": self.scope, "nested": list(self.nested),
                "changed": self.changed, "lines_added": self.lines_added, "lines_removed": self.lines_removed,
                "ops_added": self.ops_added, "ops_removed": self.ops_removed,
                "changed_facts": [c.as_dict() for c in self.changed_facts],
                "steps": [{"name": s.name, "ops_added": s.ops_added, "ops_removed": s.ops_removed,
                           "changed_facts": [c.as_dict() for c in s.changed_facts]} for s in self.steps],
                "facts_after": self.facts_after, "after_digest": self.after_digest}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PassRow":
        changes = _changes(data["changed_facts"])
        steps = tuple(PassStep(s["name"], s["ops_added"], s["ops_removed"], _changes(s["changed_facts"]))
                      for s in data["steps"])
        return cls(data["index"], data["name"], data["argument"], data["stage"], data["lines_added"],
                   data["lines_removed"], data["ops_added"], data["ops_removed"], changes, data["label"],
                   data["options"], data["scope"], tuple(data["nested"]), steps, data["changed"],
                   data["facts_after"], data["after_digest"])


def _changes(items: Iterable[dict[str, Any]]) -> tuple[FactChange, ...]:
    return tuple(FactChange(c["key"], c["before"], c["after"]) for c in items)


@dataclass
class _Pass:
    header: Dump
    before: str
    after: str | None = None
    nested: list[str] = field(default_factory=list)
    steps: list[Dump] = field(default_factory=list)


def group_passes(dumps: list[Dump]) -> list[_Pass]:
    """Dumps -> passes with the module before and after each."""
    passes: list[_Pass] = []
    for dump in dumps:
        current = passes[-1] if passes else None
        if dump.kind == "before":
            if current is not None and not dump.whole_module and current.header.stage == dump.stage:
                current.nested.append(f"{dump.argument} (@{dump.symbol})" if dump.symbol else dump.argument)
                continue
            if current is not None and current.after is None and dump.whole_module:
                current.after = dump.text  # the module as the previous pass left it
            passes.append(_Pass(dump, dump.text))
        elif dump.kind == "step" and current is not None:
            current.steps.append(dump)
        elif dump.kind == "final" and current is not None and current.after is None \
                and current.header.stage == dump.stage:
            current.after = dump.text
    return passes


class _Snapshots:
    """Each distinct snapshot text analysed once: consecutive passes share one."""

    def __init__(self):
        self._seen: dict[str, tuple[list[str], str, Counter, dict[str, Any]]] = {}

    def get(self, text: str) -> tuple[list[str], str, Counter, dict[str, Any]]:
        found = self._seen.get(text)
        if found is None:
            lines = for_pass_diff(text)
            ops = op_counts(text)
            found = self._seen[text] = (lines, _digest(lines), ops, snapshot_facts(text, ops))
        return found


def build_timeline(dump_text: str) -> dict[str, Any]:
    """The history as JSON data (what is cached): the input's facts and one entry per pass."""
    passes = group_passes(split_dump(dump_text))
    if not passes:
        raise ValueError("the dump holds no pass")
    snapshots = _Snapshots()
    totals = Counter(p.header.argument for p in passes)
    seen: Counter = Counter()
    first_lines, first_digest, _, first_facts = snapshots.get(passes[0].before)
    rows = []
    for index, item in enumerate(passes, 1):
        head = item.header
        seen[head.argument] += 1
        label = f"{head.argument}#{seen[head.argument]}" if totals[head.argument] > 1 else head.argument
        before_lines, before_digest, before_ops, before_facts = snapshots.get(item.before)
        steps = []
        state_ops, state_facts = before_ops, before_facts
        for step in item.steps:
            _, _, ops, facts = snapshots.get(step.text)
            steps.append({"name": step.argument, **_op_delta(state_ops, ops),
                          "changed_facts": _fact_delta(state_facts, facts)})
            state_ops, state_facts = ops, facts
        row = {"index": index, "name": head.name, "argument": head.argument, "label": label,
               "options": head.options, "stage": head.stage or _stage_of(item.after or item.before),
               "scope": head.scope, "nested": item.nested, "steps": steps}
        if item.after is None:
            row.update(changed=None, lines_added=None, lines_removed=None, ops_added={}, ops_removed={},
                       changed_facts=[], facts_after=before_facts, after_digest=None)
        else:
            after_lines, after_digest, after_ops, after_facts = snapshots.get(item.after)
            added, removed = _line_delta(before_lines, after_lines) if after_digest != before_digest else (0, 0)
            row.update(changed=after_digest != before_digest, lines_added=added, lines_removed=removed,
                       **_op_delta(before_ops, after_ops), changed_facts=_fact_delta(before_facts, after_facts),
                       facts_after=after_facts, after_digest=after_digest)
        rows.append(row)
    return {"schema": SCHEMA, "input": {"facts": first_facts, "digest": first_digest, "lines": len(first_lines)},
            "passes": rows, "facts": {spec.key: {"title": spec.title, "explanation": spec.explanation}
                                      for spec in FACTS}}


def _line_delta(a: list[str], b: list[str]) -> tuple[int, int]:
    added = removed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return added, removed


def _op_delta(before: Counter, after: Counter) -> dict[str, dict[str, int]]:
    return {"ops_added": dict(sorted((after - before).items())), "ops_removed": dict(sorted((before - after).items()))}


def _fact_delta(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": key, "before": before.get(key), "after": after.get(key)}
            for key in FACT_KEYS if before.get(key) != after.get(key)]


def _stage_of(text: str) -> str:
    """Without stage markers: the dialects say which pipeline a snapshot is in."""
    if "llvm.func" in text:
        return "llir"
    if "#ttg." in text or "ttg." in text:
        return "ttgir"
    return "ttir" if "tt.func" in text else "?"

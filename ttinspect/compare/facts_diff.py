"""(Report, Report) -> typed differences, each with one explanation; and a text diff of two main loops
with registers, SSA names and labels renumbered so that only real changes show."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from ttinspect.compare.explain import explain_change
from ttinspect.compare.signature import explain as explain_signature, signature_facts
from ttinspect.dialects.normalize import renumbered
from ttinspect.dialects.stages import dialect_of, lacked_by_language
from ttinspect.facts.model import Fact, change_text, jsonable, value_text
from ttinspect.report.model import Report


@dataclass(frozen=True)
class Change:
    """One fact that differs. `before`/`after` are the facts' values as they are (None: unknown);
    `before_text`/`after_text` the same as plain text, and `str(change)` one line,
    `block sizes / constexprs: BLOCK_SIZE_M 64 → 128, ...` (of a mapping, only the entries that differ)."""

    key: str
    title: str
    group: str
    before: Any
    after: Any
    explanation: str

    @property
    def before_text(self) -> str:
        """`before` as the tables show it (`BLOCK_SIZE_M=64, ...`, `cg.16B×4`, `yes`); None as `unknown`."""
        return value_text(self.before)

    @property
    def after_text(self) -> str:
        return value_text(self.after)

    @property
    def delta_text(self) -> str:
        """What changed, without the title: `4 → 5`, `BLOCK_SIZE_M 64 → 128, GROUP_SIZE_M absent → 8`."""
        return change_text(self.before, self.after)

    def __str__(self) -> str:
        return f"{self.title}: {self.delta_text}"

    def __repr__(self) -> str:  # the dataclass's own would print the raw tuples and the explanation
        return f"Change({self.key}: {self.delta_text})"


@dataclass(frozen=True)
class Diff:
    a: Report
    b: Report
    rows: tuple[tuple[Fact, Fact], ...]  # every fact, side by side, in report order
    changes: tuple[Change, ...]
    # Across vendors (sm_90 vs gfx942), the facts that do not compare, per side: (a's, b's)
    one_side: tuple[tuple[Fact, ...], tuple[Fact, ...]] = ((), ())

    def __repr__(self) -> str:  # `Diff(naive@sm_89 vs opt@sm_89: 23 changes)`
        count = len(self.changes)
        a, b = _side(self.a), _side(self.b)
        if self.a.triton_version != self.b.triton_version:  # the same kernel under two Tritons
            a, b = f"{a} (Triton {self.a.triton_version})", f"{b} (Triton {self.b.triton_version})"
        return f"Diff({a} vs {b}: {count} change{'s' * (count != 1)})"

    def __str__(self) -> str:
        """The summary line, then one line per change (`str(change)`)."""
        return "\n".join([repr(self)] + [f"  {change}" for change in self.changes])

    def change(self, key: str) -> Change | None:
        return next((c for c in self.changes if c.key == key), None)

    def as_dict(self) -> dict[str, Any]:
        return {"a": _side_dict(self.a), "b": _side_dict(self.b),
                "facts": {fa.key: {"a": jsonable(fa.value), "b": jsonable(fb.value),
                                   "changed": fa.value != fb.value} for fa, fb in self.rows},
                "changes": [{"key": c.key, "title": c.title, "a": jsonable(c.before), "b": jsonable(c.after),
                             "explanation": c.explanation} for c in self.changes],
                "one_side": {"a": {f.key: jsonable(f.value) for f in self.one_side[0]},
                             "b": {f.key: jsonable(f.value) for f in self.one_side[1]}}}


def _side_dict(report: Report) -> dict[str, Any]:
    return {"label": report.label, "target": report.target, "triton_version": report.triton_version,
            **report.device_fields()}


def _side(report: Report) -> str:
    return f"{report.label}@{report.target}"


# Facts that mean the same on NVIDIA and AMD (the configuration, the IR, and these): what a diff across
# vendors aligns. The others (PTX's cp.async, AMDGCN's s_waitcnt, ...) are listed per side.
CROSS_VENDOR = frozenset({
    "pipeline_depth", "tensor_core_path", "loop_tensor_core_ops", "registers", "spills", "blocks_per_sm",
    "occupancy", "occupancy_limit",
})
_CONFIG_AND_IR = ("configuration", "program order", "ir")


def _language_lacks(fact: Fact) -> bool:
    """Unknown because the kernel's language has no such stage (`a Gluon kernel has no TTIR, ...`): not a
    change, a fact of the other side only."""
    return fact.value is None and lacked_by_language(fact.unknown)


def _compares(fact: Fact) -> bool:
    return fact.key in CROSS_VENDOR or fact.group in _CONFIG_AND_IR or fact.source in ("ttir", "ttgir")


def _backend(report: Report) -> str | None:
    return report.build.target.backend if report.build is not None else None


def _is_loop_fact(fact: Fact) -> bool:
    head, dot, _ = fact.key.partition(".")
    return bool(dot) and head.startswith("loop") and head[4:].isdigit()


def _same_loops(a: Report, b: Report) -> dict[int, int]:
    """Loop index on side a → the index of the same loop on side b: one loop each with the same Python
    line and partition (a kernel split by warp specialization has partition loops the other side lacks)."""
    def identity(report: Report) -> dict[tuple, list[int]]:
        out: dict[tuple, list[int]] = {}
        for loop in report.loops:
            facts = loop["facts"]
            key = tuple(facts[n].value if n in facts else None for n in ("line", "partition"))
            out.setdefault(key, []).append(loop["index"])
        return out

    left, right = identity(a), identity(b)
    return {ia[0]: right[key][0] for key, ia in left.items() if len(ia) == 1 and len(right.get(key, [])) == 1}


def diff_reports(a: Report, b: Report) -> Diff:
    rows: list[tuple[Fact, Fact]] = []
    changes: list[Change] = []
    b_facts = {f.key: f for f in b.facts}
    across = _backend(a) != _backend(b)
    one_side: tuple[tuple[Fact, ...], tuple[Fact, ...]] = ((), ())
    if across:
        one_side = (tuple(f for f in a.facts if not _compares(f)), tuple(f for f in b.facts if not _compares(f)))
        b_facts = {k: f for k, f in b_facts.items() if _compares(f)}
    else:  # facts one kernel's language has and the other's not (a Gluon kernel's layouts; a Triton one's TTIR)
        a_keys = {f.key for f in a.facts if not _language_lacks(f)}
        b_keys = {k for k, f in b_facts.items() if not _language_lacks(f)}
        own = lambda f, other: f.key not in other and not _language_lacks(f) and not _is_loop_fact(f)  # noqa: E731
        one_side = (tuple(f for f in a.facts if own(f, b_keys)), tuple(f for f in b.facts if own(f, a_keys)))
        b_facts = {k: f for k, f in b_facts.items() if k in b_keys}
    # Per-loop facts only where a side has more than one loop (with one, the kernel's facts already say
    # it), and only between loops that are the same loop on both sides: same line, same partition.
    per_loop = len(a.loops) > 1 or len(b.loops) > 1
    same_loop = _same_loops(a, b) if per_loop else {}
    for fa in a.facts:
        if _is_loop_fact(fa):
            head, _, name = fa.key.partition(".")
            twin = same_loop.get(int(head[4:]))
            fb = b_facts.get(f"loop{twin}.{name}") if twin is not None else None
        else:
            fb = b_facts.get(fa.key)
        if fb is None or (across and not _compares(fa)) or _language_lacks(fa):
            continue
        rows.append((fa, fb))
        if fa.value != fb.value or (fa.value is None and fa.unknown != fb.unknown):
            changes.append(Change(fa.key, fa.title, fa.group, fa.value, fb.value,
                                  explain_change(fa.key, a, b, fa.value, fb.value, fb.explanation)))
    return Diff(a, b, *_signature_first(a, b, rows, changes), one_side)


def _signature_first(a: Report, b: Report, rows: list[tuple[Fact, Fact]], changes: list[Change]
                     ) -> tuple[tuple[tuple[Fact, Fact], ...], tuple[Change, ...]]:
    """Two compiles of one kernel specialized on other argument values: that difference, the cause of the
    others, comes first (compare/signature.py)."""
    pair = signature_facts(a, b)
    if pair is None:
        return tuple(rows), tuple(changes)
    fa, fb = pair
    change = Change(fa.key, fa.title, fa.group, fa.value, fb.value,
                    explain_signature(a, b, fa.value, fb.value, len(changes), dict(a.config) != dict(b.config)))
    return ((fa, fb), *rows), (change, *changes)


# --- text diff of main loops -------------------------------------------------------------------


def normalize(stage: str, text: str) -> list[str]:
    """Rename registers/SSA values/labels in order of first appearance; drop locations and comments
    (the stage's dialect knows which). SASS registers are kept: after register allocation they are part
    of what changed."""
    dialect = dialect_of(stage)
    return dialect.normalize(text) if dialect is not None else renumbered(text.split("\n"), "ssa")


def loop_text_diff(stage: str, a_text: str, b_text: str, a_label: str, b_label: str) -> str:
    return "\n".join(difflib.unified_diff(normalize(stage, a_text), normalize(stage, b_text),
                                          fromfile=a_label, tofile=b_label, lineterm="", n=2))

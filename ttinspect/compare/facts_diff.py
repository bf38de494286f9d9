"""(Report, Report) -> typed differences, each with one explanation; and a text diff of two main loops
with registers, SSA names and labels renumbered so that only real changes show."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any

from ttinspect.compare.explain import explain_change
from ttinspect.facts.model import Fact, change_text, value_text
from ttinspect.errors import UsageError
from ttinspect.report.collect import Report


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
        from ttinspect.facts.model import _jsonable

        return {"a": {"label": self.a.label, "target": self.a.target, "triton_version": self.a.triton_version},
                "b": {"label": self.b.label, "target": self.b.target, "triton_version": self.b.triton_version},
                "facts": {fa.key: {"a": _jsonable(fa.value), "b": _jsonable(fb.value),
                                   "changed": fa.value != fb.value} for fa, fb in self.rows},
                "changes": [{"key": c.key, "title": c.title, "a": _jsonable(c.before), "b": _jsonable(c.after),
                             "explanation": c.explanation} for c in self.changes],
                "one_side": {"a": {f.key: _jsonable(f.value) for f in self.one_side[0]},
                             "b": {f.key: _jsonable(f.value) for f in self.one_side[1]}}}


def _side(report: Report) -> str:
    return f"{report.label}@{report.target}"


# Facts that mean the same on NVIDIA and AMD (the configuration, the IR, and these): what a diff across
# vendors aligns. The others (PTX's cp.async, AMDGCN's s_waitcnt, ...) are listed per side.
CROSS_VENDOR = frozenset({
    "pipeline_depth", "tensor_core_path", "loop_tensor_core_ops", "registers", "spills", "blocks_per_sm",
    "occupancy", "occupancy_limit",
})
_CONFIG_AND_IR = ("configuration", "program order", "ir")


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
        if fb is None or (across and not _compares(fa)):
            continue
        rows.append((fa, fb))
        if fa.value != fb.value or (fa.value is None and fa.unknown != fb.unknown):
            changes.append(Change(fa.key, fa.title, fa.group, fa.value, fb.value,
                                  explain_change(fa.key, a, b, fa.value, fb.value, fb.explanation)))
    return Diff(a, b, tuple(rows), tuple(changes), one_side)


def diff(a: Any, b: Any, arch: str | None = None, *, triton: str | tuple[str | None, str | None] | None = None,
         **options: Any) -> Diff:
    """Compare two kernels: anything `inspect` takes (a variant with overrides and target
    `opt:num_stages=3@sm_90`, `my_mm.py:small`, `cache:3fa9c2`, a kernel object) or a Report already
    made. `arch`, `args=`, `config=`, `signature=` and keyword overrides apply to both sides.
    `triton`: the Triton release of both sides ("3.5.1") or of each (`("3.5.1", "3.9.0")`; None = the
    installed one), each compiled in its toolchain — "what did the upgrade change?"."""
    from ttinspect.report.collect import Report, inspect

    versions = tuple(triton) if isinstance(triton, (tuple, list)) else (triton, triton)
    if len(versions) != 2:
        raise UsageError("diff(triton=...): one release, or a pair (a's, b's)")

    def side(ref: Any, version: str | None) -> Report:
        if isinstance(ref, Report):
            if arch is not None or options or version is not None:
                raise UsageError("diff(): a Report is already compiled; arch, triton and overrides do not apply")
            return ref
        return inspect(ref, arch, triton=version, **options)

    return diff_reports(side(a, versions[0]), side(b, versions[1]))


# --- text diff of main loops -------------------------------------------------------------------

# PTX registers %r12 %rd3 %f7 %p1 %rs2 %hh1, MLIR/LLVM SSA values %12 %acc_77 %arg3, PTX/LLVM labels.
_PTX_REG = re.compile(r"%(r|rd|rs|f|fd|p|hh|h|b)(\d+)\b")
_SSA = re.compile(r"%[A-Za-z_$.][\w$.-]*?(?:_\d+)?\b|%\d+\b")
_LABEL = re.compile(r"\$L__\w+|\.L_x_\d+|\^bb\d+")
_DROP = {
    "ptx": re.compile(r"^\s*(\.loc|//|\$L__tmp\d+:)"),
    "ttir": re.compile(r"^\s*(//|#loc)"),
    "ttgir": re.compile(r"^\s*(//|#loc)"),
    "llir": re.compile(r"^\s*(;|#dbg)"),
    "sass": re.compile(r"^\s*(//##|$)"),
}
_TRAILING = {
    "ptx": re.compile(r"\s*//.*$"),
    "ttir": re.compile(r"\s*loc\(.*\)\s*$"),
    "ttgir": re.compile(r"\s*loc\(.*\)\s*$"),
    "llir": re.compile(r",?\s*!dbg !\d+"),
    "sass": re.compile(r"/\*[0-9a-f]{4,}\*/\s*|\s*/\*\s*0x[0-9a-f]+\s*\*/"),
}


def normalize(stage: str, text: str) -> list[str]:
    """Rename registers/SSA values/labels in order of first appearance; drop locations and comments.
    SASS registers are kept: after register allocation they are part of what changed."""
    names: dict[str, str] = {}
    counters: dict[str, int] = {}

    def fresh(key: str, kind: str) -> str:
        if key not in names:
            counters[kind] = counters.get(kind, 0) + 1
            names[key] = f"{kind}{counters[kind]}"
        return names[key]

    out = []
    drop, trailing = _DROP.get(stage), _TRAILING.get(stage)
    for line in text.split("\n"):
        if drop and drop.match(line):
            continue
        if trailing:
            line = trailing.sub("", line)
        line = _LABEL.sub(lambda m: fresh(m[0], "L"), line)
        if stage == "ptx":
            line = _PTX_REG.sub(lambda m: fresh(m[0], "%" + m[1]), line)
        elif stage != "sass":
            line = _SSA.sub(lambda m: fresh(m[0], "%v"), line)
        if line.strip():
            out.append(line.rstrip())
    return out


def loop_text_diff(stage: str, a_text: str, b_text: str, a_label: str, b_label: str) -> str:
    return "\n".join(difflib.unified_diff(normalize(stage, a_text), normalize(stage, b_text),
                                          fromfile=a_label, tofile=b_label, lineterm="", n=2))

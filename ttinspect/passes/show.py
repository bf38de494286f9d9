"""One pass, before and after: a unified diff of the two snapshots, renumbered (dialects/normalize.py) so only
real changes show; with `loop`, of the main loop only — the loop the rest of the tool calls main
(`dialects.main_loop.main_loop_slice`: the innermost loop holding a dot, else the innermost loop with the most ops)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from ttinspect.dialects.loop_slice import slice_text
from ttinspect.dialects.main_loop import main_loop_slice
from ttinspect.dialects.normalize import for_pass_diff
from ttinspect.errors import ParseError
from ttinspect.passes.timeline import PassRow, group_passes
from ttinspect.passes.dump import split_dump


@dataclass(frozen=True)
class PassDiff:
    row: PassRow
    unified: str  # "" when nothing changed
    lines_added: int
    lines_removed: int
    loop: bool = False
    note: str = ""  # what the diff covers, or why it cannot be shown

    def as_dict(self) -> dict[str, Any]:
        return {"index": self.row.index, "pass": self.row.label, "name": self.row.name, "stage": self.row.stage,
                "loop": self.loop, "lines_added": self.lines_added, "lines_removed": self.lines_removed,
                "note": self.note, "unified": self.unified, "nested": list(self.row.nested),
                "changed_facts": [c.as_dict() for c in self.row.changed_facts],
                "steps": [{"name": s.name, "ops_added": s.ops_added, "ops_removed": s.ops_removed,
                           "changed_facts": [c.as_dict() for c in s.changed_facts]} for s in self.row.steps]}


def snapshots_of(dump_text: str, index: int) -> tuple[str, str | None]:
    """The module before and after pass `index` (1-based, as PassRow.index)."""
    passes = group_passes(split_dump(dump_text))
    item = passes[index - 1]
    return item.before, item.after


def pass_diff(dump_text: str, row: PassRow, *, loop: bool = False, context: int = 3) -> PassDiff:
    before, after = snapshots_of(dump_text, row.index)
    if after is None:
        return PassDiff(row, "", 0, 0, loop, "the module this pass left was not printed")
    note = ""
    if loop:
        sliced = [_main_loop(text) for text in (before, after)]
        reasons = [reason for _, reason in sliced if reason]
        if len(reasons) == 2:
            return PassDiff(row, "", 0, 0, loop, f"no main loop before or after this pass: {reasons[0]}")
        before, after = (text or "" for text, _ in sliced)
        note = "main loop only" + (f" ({reasons[0]})" if reasons else "")
    a, b = for_pass_diff(before), for_pass_diff(after)
    lines = list(difflib.unified_diff(a, b, fromfile=f"before {row.label} (pass {row.index}, renumbered)",
                                      tofile=f"after {row.label}", lineterm="", n=context))
    added = sum(1 for line in lines[2:] if line.startswith("+"))
    removed = sum(1 for line in lines[2:] if line.startswith("-"))
    return PassDiff(row, "\n".join(lines), added, removed, loop, note)


def _main_loop(text: str) -> tuple[str | None, str | None]:
    """(the main loop's text, None) or (None, why there is none)."""
    try:
        found = main_loop_slice("ttgir", text)
    except ParseError as exc:
        return None, f"the snapshot does not parse ({exc})"
    if found.start_line is None:
        return None, found.reason
    return slice_text(text, found), None


def loop_line_counts(dump_text: str, rows) -> dict[int, tuple[int, int] | None]:
    """Per pass: normalized lines added/removed in the main loop; None where neither snapshot has one
    (after convert-scf-to-cf). Read from the dumps, not cached: `--loop` only."""
    passes = group_passes(split_dump(dump_text))
    loops: dict[str, list[str] | None] = {}

    def loop_lines(text: str) -> list[str] | None:
        if text not in loops:
            found, _ = _main_loop(text)
            loops[text] = None if found is None else for_pass_diff(found)
        return loops[text]

    out: dict[int, tuple[int, int] | None] = {}
    for row in rows:
        item = passes[row.index - 1]
        if item.after is None:
            out[row.index] = None
            continue
        a, b = loop_lines(item.before), loop_lines(item.after)
        if a is None and b is None:
            out[row.index] = None
            continue
        added = removed = 0
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a or [], b or [], autojunk=False).get_opcodes():
            if tag != "equal":
                removed += i2 - i1
                added += j2 - j1
        out[row.index] = (added, removed)
    return out

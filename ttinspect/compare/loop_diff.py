"""The renumbered text diff of two builds' main loops (`diff --stage`, the MCP `diff` tool's `stage`): one
piece of code for every caller, so what is said when a side has no loop, or a stage exists for one vendor only,
reads the same everywhere."""

from __future__ import annotations

from ttinspect.compare.facts_diff import loop_text_diff
from ttinspect.dialects.loop_slice import slice_text
from ttinspect.dialects.main_loop import main_loop_slice
from ttinspect.dialects.stages import for_target


def main_loop_diff(stage: str, builds) -> str:
    """The unified diff of the two builds' main loops in `stage` (`asm`: each target's own assembly), or one
    line in parentheses saying why there is none."""
    if len({r.target.backend for r in builds}) > 1 and stage not in ("ttir", "ttgir", "llir"):
        return f"(no loop diff: {stage} exists for one vendor only; ttir, ttgir and llir compare across vendors)"
    texts = []
    for built in builds:
        stage = for_target(stage, built.target.backend, built.target.name)
        text = built.artifacts.text(stage)
        found = main_loop_slice(stage, text)
        if found.start_line is None:
            return f"(no loop diff: {built.label} has no main loop in its {stage}: {found.reason})"
        texts.append(slice_text(text, found))
    labels = [f"{r.label}@{r.target.name} main loop ({stage}, renumbered)" for r in builds]
    return loop_text_diff(stage, texts[0], texts[1], *labels) or "(the main loops are identical)"

"""The markers compile/pass_dumps.py writes into MLIR's per-pass dumps (where each stage begins, and the
module each stage leaves) and passes/dump.py reads back. Plain text: no triton import."""

from __future__ import annotations

STAGE_BEGIN = "ttinspect stage begins"
STAGE_END = "ttinspect stage leaves"


def stage_marker(stage: str) -> str:
    return f"// -----// {STAGE_BEGIN}: {stage} //----- //\n"


def final_marker(stage: str) -> str:
    return f"// -----// {STAGE_END}: {stage} //----- //\n"

"""Which lines of a stage hold the kernel's main loop: what `ttinspect dump --loop` prints. The stage's
dialect object finds it (`loop_slice` says how); this is the lookup by stage name."""

from __future__ import annotations

from ttinspect.dialects.loop_slice import LoopSlice, NoMainLoop
from ttinspect.dialects.stages import DIALECT_STAGES, dialect_of
from ttinspect.errors import UsageError

LOOP_STAGES = DIALECT_STAGES


def main_loop_slice(stage: str, text: str, *, strict: bool = False) -> LoopSlice | NoMainLoop:
    """The main loop of `text`, a stage's text. Raises ParseError (with a line) on unreadable text and
    UsageError for a stage that has no loops to find (cubin)."""
    dialect = dialect_of(stage)
    if dialect is None:
        raise UsageError(f"no loops to find in stage {stage!r}; use one of {', '.join(LOOP_STAGES)}")
    return dialect.main_loop(text, strict=strict)

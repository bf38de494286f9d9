"""Which lines of a stage hold the kernel's main loop: what `ttinspect dump --loop` prints.

The rule is the same in every stage: the innermost loop that holds tensor-core work (a dot op in
TTIR/TTGIR; mma / wgmma / tcgen05.mma in LLIR and PTX; HMMA / HGMMA / UTC*MMA in SASS). A kernel without
one gets, unless `strict`, the innermost loop with the most operations, and `rule` / `reason` say so;
a kernel without loops (a vector add) gets a `NoMainLoop` that says why. Nothing is guessed: a slice
always names the rule that chose it, and a loop whose blocks are not laid out contiguously (the
out-of-line mbarrier waits of sm_100 SASS, an exit stub between latch and header in sm_100 PTX) still
gets its full span, with the lines in between that belong to other blocks in `gaps` and in `reason`.

Line numbers are 1-based and inclusive, counted over `text.split("\\n")`; `slice_text` cuts them out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ttinspect.dialects.cfg import unreachable_tensor_ops

if TYPE_CHECKING:  # only to name the types: slicing MLIR needs no CFG parser, and the reverse
    from ttinspect.dialects.cfg import MainLoop
    from ttinspect.dialects.mlir import MlirModule


@dataclass(frozen=True)
class LoopSlice:
    start_line: int
    end_line: int
    depth: int  # 1 for an outermost loop
    reason: str  # one sentence: which rule chose this loop, and anything odd about its layout
    stage: str = ""
    rule: str = "tensor-core"  # "tensor-core" (holds dot / mma work) or "largest" (no loop does)
    header_line: int = 0  # the loop header's label line (PTX/LLIR/SASS) or the scf.for line
    gaps: tuple[tuple[int, int], ...] = ()  # lines inside the span that are not part of the loop
    tensor_ops: int = 0  # dot ops (MLIR) or tensor-core instructions in the loop

    @property
    def contiguous(self) -> bool:
        return not self.gaps

    @property
    def line_count(self) -> int:
        return self.end_line - self.start_line + 1


@dataclass(frozen=True)
class NoMainLoop:
    reason: str
    stage: str = ""
    loops: int = 0  # how many loops the stage has (all without tensor-core work when strict)

    start_line = end_line = None  # so that callers can test `result.start_line is None`


def slice_text(text: str, result: LoopSlice) -> str:
    """The lines start..end of text (1-based, inclusive), as `dump --loop` prints them."""
    return "\n".join(text.split("\n")[result.start_line - 1:result.end_line])


def slice_of_function(stage: str, function: Any, strict: bool) -> LoopSlice | NoMainLoop:
    """The main loop of a parsed PTX / LLVM IR / SASS / AMDGCN function, from its control-flow graph."""
    name, loops, cfg = function.name, function.loops, function.cfg
    main: MainLoop | None = function.main_loop
    if not loops:
        return NoMainLoop(f"{name} has no loop", stage)
    if main is None:
        hidden = unreachable_tensor_ops(cfg, function.tensor_ops_per_block())
        if hidden:
            return NoMainLoop(f"{name}'s {hidden} tensor-core instruction{'s' * (hidden > 1)} lie in code the "
                              "control-flow graph cannot reach (an indirect branch whose targets the text does not "
                              "list): the loop holding them cannot be found", stage, len(loops))
        return NoMainLoop(f"{name} has {len(loops)} loop{'s' * (len(loops) > 1)}, all of them "
                          "spin-waits of a few instructions", stage, len(loops))
    if strict and main.rule != "tensor-core":
        return NoMainLoop(f"{name} has {len(loops)} loop{'s' * (len(loops) > 1)} and none holds "
                          "tensor-core instructions", stage, len(loops))
    reason = main.reason
    if main.span.gaps:
        gaps = main.span.gaps
        where = ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in gaps)
        plural = len(gaps) > 1 or gaps[0][0] != gaps[0][1]
        reason += (f"; not contiguous: line{'s' * plural} {where} inside the span belong{'s' * (not plural)} "
                   "to blocks outside the loop")
    header = cfg.blocks[main.loop.header].start_line
    return LoopSlice(main.start_line, main.end_line, main.depth, reason, stage, main.rule, header,
                     main.span.gaps, main.tensor_ops)


def slice_of_mlir(stage: str, module: MlirModule, strict: bool) -> LoopSlice | NoMainLoop:
    """The main loop of a parsed TTIR / TTGIR module: the innermost scf.for / scf.while holding a dot."""
    name = module.kernel_name
    if name is None:
        return NoMainLoop(f"no tt.func in this {stage.upper()}", stage)
    loops = module.loops
    if not loops:
        return NoMainLoop(f"{name} has no scf.for / scf.while loop", stage)
    main = module.main_loop
    if main is not None:
        return LoopSlice(main.start_line, main.end_line, main.depth,
                         f"innermost {main.op.name} holding a dot op ({main.dots} dot op"
                         f"{'s' * (main.dots > 1)} in {main.ops} ops)", stage, "tensor-core",
                         main.start_line, (), main.dots)
    if strict:
        return NoMainLoop(f"{name} has {len(loops)} loop{'s' * (len(loops) > 1)} and none holds a dot op",
                          stage, len(loops))
    leaves = [loop for i, loop in enumerate(loops) if not any(o.parent == i for o in loops)]
    best = max(leaves, key=lambda loop: (loop.ops, -loop.start_line))
    return LoopSlice(best.start_line, best.end_line, best.depth,
                     f"no loop holds a dot op; the innermost loop with the most ops ({best.ops}, of "
                     f"{len(leaves)} innermost loop{'s' * (len(leaves) > 1)})", stage, "largest",
                     best.start_line, (), 0)

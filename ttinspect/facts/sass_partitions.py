"""Warp-specialized SASS: which loops make one K step, and which partition each belongs to.

A warp-specialized kernel's worker warps park in a dispatch loop and jump through a table to their
partition's code (Triton's switch over the partition cases; nvdisasm prints it as `BRX R2 ...
(*"BRANCH_TARGETS .L_x_39,.L_x_40,..."*)`): each jump-table target starts one partition's region, the blocks
it dominates. Triton lists the cases in partition order (the partitions of each `warp_specialize` op, then
the exit), so case k is partition k of a kernel with one warp_specialize op (numbered on across several);
the SASS alone cannot say more, so that is what a loop's reason names.

The K loop is split across partitions — one issues the MMAs, another the TMA loads — so one trip of it is
the main loop (the tensor-core loop, `dialects/cfg.py`) plus, in each other partition, the innermost loop
that does work (tensor-core or global-memory / TMA instructions: a spin or retry loop never counts) and
runs the most of the main loop's Python lines. Per-iteration facts count that K step; "after the loop"
is the default partition's code (the kernel's own warps, which run the epilogue).
"""

from __future__ import annotations

from dataclasses import dataclass

from ttinspect.dialects.cfg import TRIVIAL_LOOP, CFG, Loop, MainLoop
from ttinspect.dialects.sass import SassFunction, SassInstruction

# Global and shared memory traffic and TMA copies: what makes a loop do work besides the tensor cores.
_MEMORY_OPCODES = frozenset({"LDG", "STG", "LDGSTS", "RED", "ATOM", "ATOMG", "UTMALDG", "UTMASTG", "UTMAPF",
                             "UTMAREDG", "UBLKCP", "UBLKRED", "UBLKPF", "LDS", "STS", "LDSM", "STSM"})


def does_work(i: SassInstruction) -> bool:
    """Tensor-core or global-memory / TMA work: a loop without any is a spin, a retry or a dispatch loop."""
    return i.is_tensor_core or i.opcode in _MEMORY_OPCODES


@dataclass(frozen=True)
class KStep:
    loops: tuple[Loop, ...]  # the main loop first, then one loop per other partition
    reason: str
    default_blocks: frozenset[int]  # blocks outside every partition's region and the dispatch loop


@dataclass(frozen=True)
class _Region:
    case: int  # position in the jump table
    of: int  # the table's length
    blocks: frozenset[int]


def _regions(cfg: CFG) -> list[_Region]:
    """One region per jump-table target: the blocks it dominates (a block with more than two successors
    ends in an indirect branch; a conditional branch has two)."""
    out = []
    for block in cfg.blocks:
        if len(block.successors) <= 2:
            continue
        for case, target in enumerate(block.successors):
            out.append(_Region(case, len(block.successors),
                               frozenset(b.index for b in cfg.blocks if cfg.dominates(target, b.index))))
    return out


def _lines(function: SassFunction, loop: Loop) -> set[tuple[str, int]]:
    return {i.source for i in function.loop_instructions(loop) if i.source is not None}


def _role(function: SassFunction, loop: Loop) -> str:
    instructions = function.loop_instructions(loop)
    if any(i.is_tensor_core for i in instructions):
        return "MMA loop"
    if any(i.opcode in ("LDG", "LDGSTS", "UTMALDG", "UBLKCP") for i in instructions):
        return "load loop"
    return "loop"


def k_step(function: SassFunction, main: MainLoop) -> KStep | None:
    """The loops of one K step across the partitions, when `main` lies in a partition's region; None for a
    kernel that is not warp-specialized (no jump table, or the main loop outside it)."""
    cfg = function.cfg
    regions = _regions(cfg)
    home = next((r for r in regions if main.loop.header in r.blocks), None)
    if home is None:
        return None
    wanted = _lines(function, main.loop)
    chosen: list[tuple[Loop, _Region]] = [(main.loop, home)]
    for region in regions:
        if region is home:
            continue
        candidates = [loop for loop in cfg.loops if loop.header in region.blocks and
                      not any(cfg.loops[c].header in region.blocks and _works(function, cfg.loops[c])
                              for c in loop.children) and _works(function, loop)]
        scored = [(len(_lines(function, loop) & wanted), loop) for loop in candidates]
        best = max(scored, key=lambda pair: (pair[0], -pair[1].header), default=None)
        if best is not None and best[0] > 0:
            chosen.append((best[1], region))
    dispatch: set[int] = set()  # the dispatch loop the workers park in
    for block in cfg.blocks:
        if len(block.successors) > 2:
            loop = cfg.loop_of(block.index)
            dispatch |= set(loop.blocks) if loop is not None else {block.index}
    workers = set().union(*(r.blocks for r in regions))
    default = frozenset(b.index for b in cfg.blocks if b.index not in workers and b.index not in dispatch)
    parts = [f"the {_role(function, loop)} of dispatch case {region.case} of {region.of} (partition{region.case} "
             f"in Triton's numbering; SASS lines {cfg.span(loop).start_line}-{cfg.span(loop).end_line})"
             for loop, region in chosen]
    if len(chosen) == 1:
        reason = (f"warp-specialized: {parts[0]}; no other partition has a working loop on the same Python "
                  "lines")
    else:
        reason = "one K step across the warp-specialized partitions: " + " + ".join(parts)
    return KStep(tuple(loop for loop, _ in chosen), reason, default)


def _works(function: SassFunction, loop: Loop) -> bool:
    """A loop with work of its own size: more than a spin's few instructions, and some of them work."""
    instructions = function.loop_instructions(loop)
    return len(instructions) > TRIVIAL_LOOP and any(does_work(i) for i in instructions)

"""Facts read from the PTX: what the kernel does, and what one iteration of its main loop does.

Pure: a parsed PtxModule in, Facts out. Per-iteration counts are the instructions of the main loop's
blocks (the innermost loop holding the tensor-core instructions), i.e. one trip around it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

from ..parse.ptx import Instruction, PtxModule
from .model import Fact, counts, known, unknown

# cp.async.cg.shared.global [%r1 + 0], [%rd1 + 0], 0x10, %r2;   (the third operand: bytes per copy)
_SIZE_RE = re.compile(r"^(0x[0-9a-fA-F]+|\d+)$")


@dataclass(frozen=True)
class PtxView:
    """The kernel's instructions, split into the main loop and the rest."""

    all: tuple[Instruction, ...]
    loop: tuple[Instruction, ...]  # empty when there is no main loop
    after_loop: tuple[Instruction, ...]  # instructions after the loop's last line (the drain)
    has_loop: bool
    loop_reason: str

    @staticmethod
    def of(module: PtxModule) -> "PtxView":
        kernel = module.kernel
        if kernel is None:
            return PtxView((), (), (), False, "the PTX has no .entry kernel")
        everything = tuple(i for i in kernel.instructions if not i.inline_asm or i.opcode != "bra")
        main = kernel.main_loop
        if main is None:
            return PtxView(everything, (), (), False, "the kernel has no loop")
        inside = set(kernel.cfg.loop_instructions(main.loop))
        loop = tuple(i for i in everything if i.index in inside)
        after = tuple(i for i in everything if i.index not in inside and i.line > main.end_line)
        return PtxView(everything, loop, after, True, main.reason)


def _count(instructions: Iterable[Instruction], test: Callable[[Instruction], bool]) -> int:
    return sum(1 for i in instructions if test(i))


def _starts(prefix: str) -> Callable[[Instruction], bool]:
    return lambda i: (i.mnemonic + ".").startswith(prefix + ".")


def _imm(instr: Instruction) -> int | None:
    try:
        return int(instr.operands[0], 0)
    except (IndexError, ValueError):
        return None


def _copy_bytes(instr: Instruction) -> str:
    size = instr.operands[2] if len(instr.operands) > 2 else ""
    return f"{int(size, 0)}B" if _SIZE_RE.match(size) else size


def _ldmatrix_form(instr: Instruction) -> str:
    mods = [m for m in instr.modifiers if m in ("x1", "x2", "x4", "trans")]
    return ".".join(mods) or "x1"


def _mma_shape(instr: Instruction) -> str:
    """mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 -> m16n8k16.row.col.f32.f16.f16.f32"""
    return ".".join(m for m in instr.modifiers if m not in ("sync", "aligned"))


def _wgmma_shape(instr: Instruction) -> str:
    """wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 -> m64n32k16.f32.f16.f16"""
    return ".".join(m for m in instr.modifiers if m not in ("mma_async", "sync", "aligned"))


def _global_width(instr: Instruction) -> str:
    """ld.global.v4.b32 / ld.global.nc.b16 / st.global.v2.b32 -> the vector width and element type."""
    keep = [m for m in instr.modifiers if m.startswith(("v", "b", "u", "s", "f")) and m != "global"]
    return ".".join([instr.opcode, "global", *keep])


def tensor_core_path(view: PtxView) -> str:
    instructions = view.all
    if _count(instructions, _starts("tcgen05.mma")):
        return "tcgen05"
    if _count(instructions, _starts("wgmma.mma_async")):
        return "wgmma"
    if _count(instructions, _starts("mma")):
        return "mma.sync"
    return "none"


def ptx_facts(view: PtxView) -> list[Fact]:
    facts: list[Fact] = []
    loop, whole = view.loop, view.all

    def per_loop(key, title, group, value, explanation):
        if not view.has_loop:
            facts.append(unknown(key, title, group, f"not applicable: {view.loop_reason}", explanation,
                                 "ptx main loop"))
        else:
            facts.append(known(key, title, group, value, explanation, "ptx main loop"))

    is_cp_async = _starts("cp.async")
    # cp.async.cg.shared.global: opcode "cp", modifiers ("async", "cg", "shared", "global")
    plain_cp_async = [i for i in loop if is_cp_async(i) and i.modifiers[1:2] in (("ca",), ("cg",))]
    per_loop("loop_cp_async", "cp.async per iteration", "pipeline",
             counts(f"{i.modifiers[1]}.{_copy_bytes(i)}" for i in plain_cp_async),
             "asynchronous global→shared copies issued per iteration (cg bypasses L1, ca caches in L1), "
             "with bytes per copy")
    per_loop("loop_commit_groups", "cp.async.commit_group per iteration", "pipeline",
             _count(loop, _starts("cp.async.commit_group")),
             "commit groups closed per iteration: Triton closes one group per pipelined load")
    per_loop("loop_wait_group", "cp.async.wait_group in the loop", "pipeline",
             tuple(sorted({_imm(i) for i in loop if _starts("cp.async.wait_group")(i)})),
             "cp.async.wait_group N blocks until at most N committed groups are still pending "
             "(it does not wait for N groups)")
    facts.append(known("drain_wait_group", "cp.async.wait_group after the loop", "pipeline",
                       tuple(_imm(i) for i in view.after_loop if _starts("cp.async.wait_group")(i)),
                       "waits after the loop; wait_group 0 drains every copy still in flight",
                       "ptx"))
    facts.append(known("commit_groups", "cp.async.commit_group (whole kernel)", "pipeline",
                       _count(whole, _starts("cp.async.commit_group")),
                       "all commit groups, prologue included: the prologue fills num_stages-1 stages",
                       "ptx"))
    per_loop("loop_bar_sync", "bar.sync per iteration", "pipeline",
             _count(loop, lambda i: i.opcode in ("bar", "barrier") and "sync" in i.modifiers),
             "CTA-wide barriers per iteration (make copied tiles visible to all warps before use)")
    per_loop("loop_ldmatrix", "ldmatrix per iteration", "memory traffic",
             counts(_ldmatrix_form(i) for i in loop if i.opcode == "ldmatrix"),
             "shared→register loads of 8×8 b16 tiles (x4 = four tiles, .trans = transposed, for B)")
    per_loop("loop_mma", "mma.sync per iteration", "tensor cores",
             counts(_mma_shape(i) for i in loop if _starts("mma")(i)),
             "warp-level tensor-core MMAs per iteration (Ampere/Ada path), by shape and types")
    per_loop("loop_wgmma", "wgmma.mma_async per iteration", "tensor cores",
             counts(_wgmma_shape(i) for i in loop if _starts("wgmma.mma_async")(i)),
             "warpgroup (128-thread) asynchronous MMAs per iteration (Hopper), by shape; operands "
             "come from shared memory")
    per_loop("loop_wgmma_wait", "wgmma.wait_group in the loop", "tensor cores",
             tuple(sorted({_imm(i) for i in loop if _starts("wgmma.wait_group")(i)})),
             "wgmma.wait_group N: wait until at most N wgmma groups are pending (1 = keep one "
             "iteration's MMAs in flight)")
    per_loop("loop_wgmma_sync", "wgmma fence / commit per iteration", "tensor cores",
             counts(i.mnemonic.split(".")[1] for i in loop
                    if _starts("wgmma.fence")(i) or _starts("wgmma.commit_group")(i)),
             "wgmma.fence orders register/shared accesses before an MMA; commit_group closes a group")
    per_loop("loop_tcgen05_mma", "tcgen05.mma per iteration", "tensor cores",
             _count(loop, _starts("tcgen05.mma")),
             "Blackwell tensor-core MMAs (accumulator in tensor memory) per iteration")
    per_loop("loop_tensor_core_ops", "tensor-core instructions per iteration (per K step)", "tensor cores",
             _count(loop, lambda i: i.is_tensor_core),
             "MMA instructions one trip around the main loop issues, i.e. per BLOCK_K step")
    facts.append(known("tensor_core_path", "tensor-core path", "tensor cores", tensor_core_path(view),
                       "which MMA instructions the kernel uses: mma.sync (Ampere/Ada), wgmma (Hopper), "
                       "tcgen05 (Blackwell), none", "ptx"))
    facts.append(known("mbarrier_ops", "mbarrier operations", "pipeline",
                       counts(".".join(i.modifiers[:1]) for i in whole if i.opcode == "mbarrier"),
                       "shared-memory barriers that track TMA / tcgen05 completion (init = one per "
                       "buffer)", "ptx"))
    facts.append(known("tma_copies", "cp.async.bulk(.tensor) (TMA)", "memory traffic",
                       counts(".".join(i.modifiers[:2]) for i in whole if _starts("cp.async.bulk")(i)),
                       "bulk copies done by the Tensor Memory Accelerator", "ptx"))
    facts.append(known("global_loads", "ld.global by width", "memory traffic",
                       counts(_global_width(i) for i in whole if i.opcode == "ld" and "global" in i.modifiers),
                       "direct global loads (v4.b32 = 16 bytes per thread)", "ptx"))
    facts.append(known("global_stores", "st.global by width", "memory traffic",
                       counts(_global_width(i) for i in whole if i.opcode == "st" and "global" in i.modifiers),
                       "global stores (v4.b32 = 16 bytes per thread)", "ptx"))
    facts.append(known("predicated_global_access", "predicated global loads/copies", "memory traffic",
                       _count(whole, lambda i: i.predicate is not None and (
                           (i.opcode == "ld" and "global" in i.modifiers) or is_cp_async(i))),
                       "loads and cp.async guarded by a predicate (a mask); cp.async may also zero-fill "
                       "through its src-size operand instead", "ptx"))
    facts.append(known("rem_div", "rem / div instructions", "program order",
                       counts(i.opcode + "." + i.modifiers[-1] for i in whole
                              if i.opcode in ("rem", "div") and i.modifiers),
                       "integer remainders/divisions: pid remapping and modulo addressing cost these",
                       "ptx"))
    facts.append(known("setp", "setp (comparisons)", "program order", _count(whole, lambda i: i.opcode == "setp"),
                       "predicate-setting comparisons in the whole kernel (masks, loop bounds)", "ptx"))
    return facts

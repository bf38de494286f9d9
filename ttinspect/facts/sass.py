"""Facts read from the SASS: the machine instructions of the kernel and of one trip around its main loop.

Pure: a parsed SassModule in, Facts out. The kernel is the first function that is not one of the
`$__internal_*` trap helpers sm_100 cubins carry. Per-iteration counts are the static instructions of
the main loop's blocks (the innermost loop holding the tensor-core instructions, nested spin loops and
out-of-line wait blocks included), i.e. one trip around it; in a warp-specialized kernel, one K step
across the partitions (facts/sass_partitions.py). Tensor-core instructions in code the control-flow
graph cannot reach (an indirect branch whose targets the SASS does not list) make every per-iteration
fact unknown rather than facts of some other loop.

Every count leaves out instructions guarded by `@!PT` (the predicate is constant false: ptxas pads with
`@!PT LDS RZ, [RZ]`, which never executes); the total instruction counts keep them, like NOPs.

How the PTX maps (measured on Triton 3.6/3.9, sm_80/90/100): mma.sync m16n8k16 → HMMA.16816.F32,
wgmma m64nNk16 → HGMMA.64xNx16.F32 (QGMMA for fp8), tcgen05.mma → UTCHMMA / UTCQMMA (the shape lives in
the instruction descriptor register, not the mnemonic), cp.async.cg 16 B → LDGSTS.E.BYPASS.128,
cp.async.commit_group → LDGDEPBAR, cp.async.wait_group N → DEPBAR.LE SB0, N, ldmatrix.x4(.trans) →
LDSM.16.M88.4 (MT88), wgmma.fence → WARPGROUP.ARRIVE, wgmma.wait_group N → WARPGROUP.DEPBAR.LE gsb0, N,
mbarrier.init / arrive.expect_tx / try_wait / inval → SYNCS.EXCH.64 / ARRIVE.TRANS64 /
PHASECHK.TRANS64.TRYWAIT / CCTL.IV, cp.async.bulk.tensor → UTMALDG / UTMASTG, tcgen05.commit → UTCBAR,
tcgen05.ld/st → LDTM/STTM.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from ttinspect.dialects.cfg import unreachable_tensor_ops
from ttinspect.dialects.sass import SassFunction, SassInstruction, SassModule
from ttinspect.facts.model import Fact, counts, known, loop_fact, unknown
from ttinspect.facts.sass_partitions import does_work, k_step

# Bulk-copy / TMA engine opcodes (cp.async.bulk[.tensor], prefetch, reduce, and the bulk-group commit).
_TMA_OPCODES = frozenset({"UTMALDG", "UTMASTG", "UTMAPF", "UTMAREDG", "UTMACCTL", "UTMACMDFLUSH",
                          "UBLKCP", "UBLKRED", "UBLKPF"})


@dataclass(frozen=True)
class SassView:
    """The kernel's SASS instructions, split into the main loop and the rest."""

    function: str | None  # the kernel function's name
    all: tuple[SassInstruction, ...]  # every instruction of the kernel function, padding included
    loop: tuple[SassInstruction, ...]  # empty when there is no main loop
    after_loop: tuple[SassInstruction, ...]  # outside the loop, after its first instruction (the drain)
    has_loop: bool
    loop_reason: str
    loop_unknown: bool = False  # True: there may be a main loop, but the SASS cannot show it (loop_reason)
    partitions: str = ""  # warp-specialized: which partitions' loops make the K step counted

    @staticmethod
    def of(module: SassModule) -> "SassView":
        kernel = _kernel(module)
        if kernel is None:
            return SassView(None, (), (), (), False, "the SASS has no function")
        everything = kernel.instructions
        main = kernel.main_loop
        hidden = unreachable_tensor_ops(kernel.cfg, kernel.tensor_ops_per_block())
        if hidden and main is None:
            return SassView(kernel.name, everything, (), (), False,
                            f"{hidden} tensor-core instruction{'s' * (hidden > 1)} lie in code the control-flow graph "
                            "cannot reach (an indirect branch whose targets the SASS does not list), so the loop "
                            "holding them cannot be found", True)
        if main is None:
            return SassView(kernel.name, everything, (), (), False, "the kernel has no loop")
        if main.rule != "tensor-core" and not any(does_work(i) for i in kernel.loop_instructions(main.loop)):
            return SassView(kernel.name, everything, (), (), False,
                            "no loop does memory or tensor-core work (spin, retry and dispatch loops only)")
        step = k_step(kernel, main)
        loops = step.loops if step is not None else (main.loop,)
        inside = sorted({i for loop in loops for i in kernel.cfg.loop_instructions(loop)})
        if not inside:
            return SassView(kernel.name, everything, (), (), False, "the main loop has no instructions")
        members = set(inside)
        loop = tuple(everything[i] for i in inside)
        if step is not None:  # the default partition's code runs the epilogue
            blocks = kernel.cfg.blocks
            after = tuple(everything[i] for b in sorted(step.default_blocks)
                          for i in range(blocks[b].first, blocks[b].last) if i not in members)
            return SassView(kernel.name, everything, loop, after, True, f"{main.reason}; {step.reason}",
                            partitions=step.reason)
        after = tuple(i for i in everything if i.index not in members and i.index > inside[0])
        return SassView(kernel.name, everything, loop, after, True, main.reason)

    @property
    def executed(self) -> tuple[SassInstruction, ...]:
        return tuple(i for i in self.all if _live(i))

    @property
    def loop_executed(self) -> tuple[SassInstruction, ...]:
        return tuple(i for i in self.loop if _live(i))


def _kernel(module: SassModule) -> SassFunction | None:
    for function in module.functions:
        if not function.name.startswith("$"):
            return function
    return module.kernel


def _live(i: SassInstruction) -> bool:
    """False for `@!PT ...`: guarded by the constant-false predicate, it never executes."""
    return not (i.predicate == "PT" and i.negated)


def _count(instructions: Iterable[SassInstruction], test: Callable[[SassInstruction], bool]) -> int:
    return sum(1 for i in instructions if test(i))


def _imm(text: str) -> int | None:
    try:
        return int(text.strip(), 0)
    except ValueError:
        return None


def access_bytes(i: SassInstruction) -> int:
    """Bytes one thread moves: .128 = 16, .64 = 8, .U16/.S16 = 2, .U8/.S8 = 1, no width = 4 (32 bits)."""
    mods = set(i.modifiers)
    if "128" in mods:
        return 16
    if "64" in mods:
        return 8
    if mods & {"U16", "S16"}:
        return 2
    if mods & {"U8", "S8"}:
        return 1
    return 4


def _width(i: SassInstruction) -> str:
    return f"{access_bytes(i)}B"


def _op_width(i: SassInstruction) -> str:
    return f"{i.opcode}.{access_bytes(i)}B"


def _ldgsts_form(i: SassInstruction) -> str:
    """LDGSTS.E.BYPASS.LTC128B.128 -> BYPASS.16B (L1 bypassed: cp.async.cg); LDGSTS.E.128 -> 16B (.ca)."""
    keep = [m for m in i.modifiers if m in ("BYPASS", "ZFILL")]
    return ".".join([*keep, _width(i)])


def _matrix_form(i: SassInstruction) -> str:
    """LDSM.16.M88.4 -> x4, LDSM.16.MT88.4 -> x4.T (transposed), LDSM.16.M88.2 -> x2, LDSM.16.M88 -> x1."""
    last = i.modifiers[-1] if i.modifiers else ""
    form = f"x{last}" if last in ("1", "2", "4") else "x1"
    return form + (".T" if any(m.startswith("MT") for m in i.modifiers) else "")


def _shared_form(i: SassInstruction) -> str:
    if i.opcode in ("LDSM", "STSM"):
        return f"{i.opcode}.{_matrix_form(i)}"
    return _op_width(i)


def _is_mma(i: SassInstruction) -> bool:
    return i.is_tensor_core


def _is_ldgsts(i: SassInstruction) -> bool:
    return i.opcode == "LDGSTS"


def _is_bar_sync(i: SassInstruction) -> bool:
    return i.opcode == "BAR" and "SYNC" in i.modifiers


def _is_shared(i: SassInstruction) -> bool:
    return i.opcode in ("LDS", "STS", "LDSM", "STSM")


def _is_local(i: SassInstruction) -> bool:
    return i.opcode in ("LDL", "STL")


def _is_tcgen05(i: SassInstruction) -> bool:
    """Blackwell tensor-core instructions other than the MMAs: UTCBAR, UTCATOMSWS, UTCCP, ..., LDTM, STTM."""
    return (i.opcode.startswith("UTC") and not i.is_tensor_core) or i.opcode in ("LDTM", "STTM")


def _depbar_sb0(instructions: Iterable[SassInstruction]) -> list[int]:
    """DEPBAR.LE SB0, 0x4 -> 4: the cp.async.wait_group immediate (SB0 counts the groups LDGDEPBAR closes;
    after UTMACMDFLUSH it counts bulk groups, so DEPBAR.LE SB0, 0x0 there is cp.async.bulk.wait_group 0)."""
    out = []
    for i in instructions:
        if i.opcode == "DEPBAR" and "LE" in i.modifiers and len(i.operands) >= 2 and i.operands[0] == "SB0":
            value = _imm(i.operands[1])
            if value is not None:
                out.append(value)
    return out


def _warpgroup_waits(instructions: Iterable[SassInstruction]) -> list[int]:
    """WARPGROUP.DEPBAR.LE gsb0, 0x1 -> 1 (wgmma.wait_group 1)."""
    out = []
    for i in instructions:
        if i.mnemonic == "WARPGROUP.DEPBAR.LE" and len(i.operands) >= 2:
            value = _imm(i.operands[1])
            if value is not None:
                out.append(value)
    return out


def tensor_core_path(view: SassView) -> str:
    """The tensor-core opcode(s) the kernel issues: HMMA, HGMMA, QGMMA, UTCHMMA, UTCQMMA, ...; "none"."""
    opcodes = sorted({i.opcode for i in view.executed if i.is_tensor_core})
    return "+".join(opcodes) if opcodes else "none"


def sass_facts(view: SassView) -> list[Fact]:
    facts: list[Fact] = []
    whole, loop = view.executed, view.loop_executed

    def per_loop(key, title, group, value, explanation):
        if view.loop_unknown:
            facts.append(unknown(key, title, group, view.loop_reason, explanation, "sass main loop"))
            return
        if view.partitions:
            explanation += f". Here: {view.partitions}"
        facts.append(loop_fact(key, title, group, value, explanation, "sass main loop", has_loop=view.has_loop,
                               loop_reason=view.loop_reason))

    def whole_kernel(key, title, group, value, explanation):
        if view.function is None:
            facts.append(unknown(key, title, group, view.loop_reason, explanation, "sass"))
        else:
            facts.append(known(key, title, group, value, explanation, "sass"))

    # --- size
    whole_kernel("sass_instructions", "SASS instructions (kernel)", "program order", len(view.all),
                 "static machine instructions in the kernel function (NOP and never-executed @!PT "
                 "padding included; sm_100 trap helpers left out)")
    per_loop("sass_loop_instructions", "SASS instructions per iteration", "program order", len(view.loop),
             "static machine instructions in one trip around the main loop (its blocks, including "
             "nested spin loops and out-of-line wait blocks); warp-specialized: one K step, the loops of "
             "every partition that runs it together")

    # --- tensor cores
    whole_kernel("sass_tensor_core_path", "tensor-core path (SASS)", "tensor cores", tensor_core_path(view),
                 "tensor-core opcodes issued: HMMA (warp MMA, Ampere/Ada), HGMMA/QGMMA (warpgroup MMA, "
                 "Hopper), UTCHMMA/UTCQMMA (tcgen05, Blackwell), none")
    whole_kernel("sass_mma", "tensor-core instructions (kernel, SASS)", "tensor cores",
                 counts(i.mnemonic for i in whole if _is_mma(i)),
                 "every MMA by mnemonic: HMMA.16816.F32 = m16n8k16 with fp32 accumulate, HGMMA.64x32x16 = "
                 "m64n32k16; UTC*MMA carries its shape in the instruction descriptor, not the name")
    per_loop("sass_loop_mma", "tensor-core instructions per iteration (SASS)", "tensor cores",
             counts(i.mnemonic for i in loop if _is_mma(i)),
             "MMAs one trip around the main loop issues, by mnemonic (one per PTX mma / wgmma / "
             "tcgen05.mma)")
    per_loop("sass_loop_tensor_core_ops", "tensor-core instructions per iteration (SASS total)",
             "tensor cores", _count(loop, _is_mma),
             "MMA instructions per BLOCK_K step, all shapes together")
    per_loop("sass_loop_warpgroup_arrive", "WARPGROUP.ARRIVE per iteration", "tensor cores",
             _count(loop, lambda i: i.mnemonic == "WARPGROUP.ARRIVE"),
             "WARPGROUP.ARRIVE is wgmma.fence: registers/shared memory written before it are visible "
             "to the HGMMAs after it (the HGMMA carrying gsb0 closes the commit group)")
    per_loop("sass_loop_warpgroup_wait", "WARPGROUP.DEPBAR.LE in the loop", "tensor cores",
             tuple(sorted(set(_warpgroup_waits(loop)))),
             "WARPGROUP.DEPBAR.LE gsb0, N is wgmma.wait_group N: wait until at most N HGMMA groups "
             "are pending (1 keeps one iteration's MMAs in flight)")
    whole_kernel("sass_tcgen05_ops", "tcgen05 non-MMA instructions (kernel)", "tensor cores",
                 counts(i.opcode for i in whole if _is_tcgen05(i)),
                 "Blackwell tensor-memory work: UTCBAR = tcgen05.commit (arrive on an mbarrier when the "
                 "issued MMAs finish), LDTM/STTM = tcgen05.ld/st, UTCATOMSWS = tensor-memory allocation")
    per_loop("sass_loop_tcgen05_ops", "tcgen05 non-MMA instructions per iteration", "tensor cores",
             counts(i.opcode for i in loop if _is_tcgen05(i)),
             "UTCBAR per iteration: one tcgen05.commit signals the mbarrier the next wait checks")

    # --- cp.async pipeline
    whole_kernel("sass_ldgsts", "LDGSTS (cp.async, kernel)", "pipeline",
                 counts(_ldgsts_form(i) for i in whole if _is_ldgsts(i)),
                 "asynchronous global→shared copies (cp.async), prologue included, by form: BYPASS = "
                 "L1 bypassed (.cg), 16B = bytes per thread per copy (L2 hints such as LTC128B left out)")
    per_loop("sass_loop_ldgsts", "LDGSTS per iteration", "pipeline",
             counts(_ldgsts_form(i) for i in loop if _is_ldgsts(i)),
             "cp.async copies each thread issues per iteration (BYPASS.16B = cp.async.cg of 16 bytes)")
    whole_kernel("sass_ldgdepbar", "LDGDEPBAR (kernel)", "pipeline",
                 _count(whole, lambda i: i.opcode == "LDGDEPBAR"),
                 "LDGDEPBAR is cp.async.commit_group; the prologue closes num_stages-1 groups per "
                 "pipelined load")
    per_loop("sass_loop_ldgdepbar", "LDGDEPBAR per iteration", "pipeline",
             _count(loop, lambda i: i.opcode == "LDGDEPBAR"),
             "cp.async commit groups closed per iteration: one per pipelined load")
    per_loop("sass_loop_depbar", "DEPBAR.LE SB0 in the loop", "pipeline",
             tuple(sorted(set(_depbar_sb0(loop)))),
             "DEPBAR.LE SB0, N is cp.async.wait_group N: wait until at most N committed groups "
             "(LDGDEPBAR) are still pending; it does not wait for N groups")
    per_loop("sass_drain_depbar", "DEPBAR.LE SB0 after the loop", "pipeline",
             tuple(_depbar_sb0(view.after_loop)),
             "waits on scoreboard SB0 after the loop: 0 drains every cp.async group still in flight "
             "(after UTMACMDFLUSH the same form is cp.async.bulk.wait_group 0 for TMA stores)")
    per_loop("sass_loop_bar_sync", "BAR.SYNC per iteration", "pipeline", _count(loop, _is_bar_sync),
             "CTA-wide barriers (bar.sync / __syncthreads) per iteration, spin-loop copies included")
    whole_kernel("sass_bar_sync", "BAR.SYNC (kernel)", "pipeline", _count(whole, _is_bar_sync),
                 "CTA-wide barriers in the whole kernel")

    # --- mbarrier / TMA / fences
    whole_kernel("sass_mbarrier_ops", "SYNCS (mbarrier, kernel)", "pipeline",
                 counts(i.mnemonic[len("SYNCS."):] for i in whole if i.opcode == "SYNCS"),
                 "shared-memory barrier instructions: EXCH.64 = mbarrier.init, ARRIVE.TRANS64 = arrive "
                 "(.expect_tx), PHASECHK.TRANS64.TRYWAIT = try_wait (twice per wait when ptxas adds an "
                 "out-of-line retry), CCTL.IV = inval")
    per_loop("sass_loop_mbarrier_ops", "SYNCS per iteration", "pipeline",
             counts(i.mnemonic[len("SYNCS."):] for i in loop if i.opcode == "SYNCS"),
             "mbarrier arrives and phase checks one trip around the loop issues (TMA / tcgen05 "
             "completion tracking)")
    whole_kernel("sass_tma", "TMA / bulk copies (kernel)", "memory traffic",
                 counts(i.mnemonic for i in whole if i.opcode in _TMA_OPCODES),
                 "Tensor Memory Accelerator instructions: UTMALDG/UTMASTG = cp.async.bulk.tensor load/"
                 "store (.2D = tensor rank), UBLKCP = non-tensor bulk copy, UTMACMDFLUSH = bulk commit_group")
    per_loop("sass_loop_tma", "TMA / bulk copies per iteration", "memory traffic",
             counts(i.mnemonic for i in loop if i.opcode in _TMA_OPCODES),
             "TMA copies issued per iteration (one elected thread issues each)")
    per_loop("sass_loop_fences", "fences per iteration", "pipeline",
             counts(i.mnemonic for i in loop if i.opcode in ("FENCE", "MEMBAR")),
             "FENCE.VIEW.ASYNC.S (with MEMBAR.ALL.CTA) is fence.proxy.async: generic-proxy shared "
             "writes become visible to the async proxy (TMA, wgmma, tcgen05)")

    # --- memory traffic
    whole_kernel("sass_global_loads", "LDG by width (kernel)", "memory traffic",
                 counts(_width(i) for i in whole if i.opcode == "LDG"),
                 "direct global loads, by bytes per thread (LDG.E.128 = 16B, .64 = 8B, plain .E = 4B)")
    per_loop("sass_loop_global_loads", "LDG by width per iteration", "memory traffic",
             counts(_width(i) for i in loop if i.opcode == "LDG"),
             "direct global loads per iteration (a pipelined loop loads through LDGSTS or TMA instead)")
    whole_kernel("sass_global_stores", "STG by width (kernel)", "memory traffic",
                 counts(_width(i) for i in whole if i.opcode == "STG"),
                 "global stores, by bytes per thread (STG.E.128 = 16B)")
    whole_kernel("sass_shared_memory_ops", "LDS/STS/LDSM/STSM (kernel)", "memory traffic",
                 counts(_shared_form(i) for i in whole if _is_shared(i)),
                 "shared-memory accesses by form: LDS/STS with bytes per thread, LDSM/STSM = ldmatrix/"
                 "stmatrix (x4 = four 8×8 tiles, .T = transposed)")
    per_loop("sass_loop_shared_memory_ops", "LDS/STS per iteration", "memory traffic",
             counts(_op_width(i) for i in loop if i.opcode in ("LDS", "STS")),
             "plain shared loads/stores per iteration, by bytes per thread (ptxas's never-executed "
             "`@!PT LDS RZ, [RZ]` padding left out)")
    per_loop("sass_loop_ldsm", "LDSM per iteration", "memory traffic",
             counts(_matrix_form(i) for i in loop if i.opcode == "LDSM"),
             "ldmatrix per iteration: shared→register loads of 8×8 b16 tiles (x4 = four tiles, .T = "
             "transposed, for B)")
    whole_kernel("sass_local_memory", "LDL/STL (kernel)", "memory traffic",
                 counts(_op_width(i) for i in whole if _is_local(i)),
                 "local-memory accesses (register spills or stack arrays), by bytes per access; none "
                 "means nothing lives in local memory")
    per_loop("sass_loop_local_memory", "LDL/STL per iteration", "memory traffic",
             counts(_op_width(i) for i in loop if _is_local(i)),
             "local-memory accesses one trip around the main loop: spills inside the hot loop")
    return facts

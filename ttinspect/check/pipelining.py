"""TTI001 loop-not-pipelined: num_stages > 1 was asked for, but the main loop's loads are not
asynchronous (or fewer stages deep than asked) — and why, read from the final TTIR/TTGIR/PTX and the
config.

What Triton's software pipeliner needs (its AssignLatencies / loadOpsToIndirectionLevel, Triton 3.x):
an innermost `scf.for` (not a while loop) without a GPU barrier in it, loads that feed a `tt.dot`
(unless the loop itself carries `tt.num_stages`, i.e. `tl.range(..., num_stages=N)`), at least 4 bytes
per thread per load (cp.async copies 4, 8 or 16), a target with cp.async (sm_80+), and a loop that
does not ask for `num_stages=1` itself. A load whose address comes from another load in the loop gets
its own stage: with I levels of indirection each level has (num_stages - 1) / (I + 1) stages, and
none when that is 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from .context import fact_evidence, fact_value, stages_of
from .model import Evidence, Finding
from .ssa import Chains

ID, SLUG = "TTI001", "loop-not-pipelined"


@dataclass(frozen=True)
class Reason:
    text: str  # why the pipeliner left the loop alone
    evidence: tuple[Evidence, ...]
    fix: str


def loop_not_pipelined(report, build) -> list[Finding]:
    asked, depth = fact_value(report, "num_stages"), fact_value(report, "pipeline_depth")
    if not isinstance(asked, int) or asked <= 1 or not isinstance(depth, int) or depth >= asked:
        return []  # nothing asked for, pipelined as asked, or the depth is unknown: silent
    if build is None:
        return []
    stages = stages_of(build)
    loop = _loop_of_interest(stages)
    if loop is None:
        return []
    reasons = _why_not_pipelined(report, build, loop)
    shallow = depth > 1
    if shallow and not reasons:
        return []  # a shallower pipeline without a known cause is not worth a guess
    evidence = [e for e in (fact_evidence(report, "num_stages"), fact_evidence(report, "pipeline_depth")) if e]
    evidence += [stages.mlir_evidence("ttir", loop.op)]
    for reason in reasons:
        evidence += reason.evidence
    why_found = " ".join(f"({n}) {r.text}" for n, r in enumerate(reasons, 1)) if reasons else (
        "reason unknown: the final IR shows none of the conditions ttinspect knows (a load not feeding a dot, "
        "a nested or while loop, a barrier, narrow or indirect loads, tl.range(num_stages=1), a target "
        "without cp.async)")
    title = (f"main loop pipelined {depth} stages deep, num_stages={asked} asked for" if shallow else
             f"main loop not software-pipelined although num_stages={asked}")
    matters = ("Without pipelining every iteration waits for its own global loads: the tensor cores (or ALUs) "
               "idle for the full memory latency each K step. " if not shallow else
               "Fewer loads are in flight than asked for, so less memory latency is hidden. ")
    fixes = [r.fix for r in reasons] or ["Compare with `ttinspect dump REF --stage ttgir --loop`: the loop's "
                                         "loads stay `tt.load` instead of `ttg.async_copy_global_to_local`."]
    return [Finding(ID, SLUG, "info" if shallow else "warning", title, tuple(_unique(evidence)),
                    matters + "Why: " + why_found, " ".join(fixes))]


def _loop_of_interest(stages):
    """The TTIR loop the PTX main loop comes from: the innermost loop holding a dot, else the innermost
    loop with the most loads."""
    module = stages.ttir
    if module is None or not module.loops:
        return None
    if module.main_loop is not None:
        return module.main_loop
    loads = {i: _ops_in(module, loop, "tt.load") for i, loop in enumerate(module.loops)}
    parents = {loop.parent for loop in module.loops if loop.parent is not None}
    innermost = [i for i in loads if loads[i] and i not in parents]
    if not innermost:
        return None
    return module.loops[max(innermost, key=lambda i: len(loads[i]))]


def _ops_in(module, loop, name: str) -> list:
    return [op for op in module.ops if op.name == name and loop.op.line < op.line <= loop.op.end_line]


def _why_not_pipelined(report, build, loop) -> list[Reason]:
    """Every condition the final IR shows that keeps Triton's pipeliner off `loop` (a TTIR MlirLoop).

    The lead adds pass-history evidence here (which pass would have pipelined the loop and left it
    alone); for now everything comes from the final TTIR/TTGIR/PTX and the config."""
    stages = stages_of(build)
    module = stages.ttir
    reasons: list[Reason] = []
    target = build.target
    asked = fact_value(report, "num_stages")
    loads = _ops_in(module, loop, "tt.load")
    load_evidence = tuple(stages.mlir_evidence("ttir", op) for op in loads[:2])
    if target.capability < 80:
        reasons.append(Reason(
            f"{target.name} has no cp.async (asynchronous global→shared copies arrive with sm_80), so Triton does "
            "not pipeline loads for it", load_evidence,
            f"Nothing to change in the kernel for {target.name}; num_stages has no effect there (set num_stages=1 "
            "to say so). On sm_80+ the same kernel is pipelined."))
    closing = stages.lines("ttir")[loop.op.end_line - 1] if loop.op.end_line else ""
    if "tt.num_stages = 1" in closing:
        reasons.append(Reason(
            "the loop itself asks for one stage (`tl.range(..., num_stages=1)`), which wins over the launch's "
            f"num_stages={asked}", (stages.evidence("ttir", loop.op.end_line),),
            f"Drop num_stages=1 from the loop's tl.range (or set it to {asked})."))
    if loop.op.name == "scf.while":
        reasons.append(Reason(
            "it is a while loop (scf.while: its trip count is decided inside the loop); the pipeliner only "
            "takes counted for-loops (scf.for)", (stages.mlir_evidence("ttir", loop.op),),
            "Write it as `for k in range(start, end, step)` with the bound known before the loop."))
    inner = [other for other in module.loops if other.parent is not None and module.loops[other.parent] is loop]
    if inner:
        reasons.append(Reason(
            "it is not the innermost loop (it holds another loop); the pipeliner only takes innermost loops",
            (stages.mlir_evidence("ttir", inner[0].op),),
            "Move the inner loop out of the K loop (or unroll it with tl.static_range) so the loop with the "
            "loads and the dot is innermost."))
    barriers = [op for op in _ops_in(module, loop, "gpu.barrier")]
    if barriers:
        reasons.append(Reason(
            "the loop holds a CTA barrier (tl.debug_barrier), which the pipeliner treats as unsafe to reorder "
            "around", (stages.mlir_evidence("ttir", barriers[0]),), "Remove the tl.debug_barrier from the loop."))
    if loop.dots == 0 and "tt.num_stages" not in closing and loads:
        reasons.append(Reason(
            "its loads feed no tl.dot; Triton pipelines such loads only when the loop asks for it", load_evidence,
            f"Write the loop as `for i in tl.range(start, end, step, num_stages={asked})`."))
    reasons += _narrow_or_indirect(stages, loop, loads, asked)
    return reasons


def _narrow_or_indirect(stages, loop, loads, asked) -> list[Reason]:
    reasons: list[Reason] = []
    chains = Chains(stages.ttir)
    indirect = []
    for op in loads:
        operands = chains.load_operands(op)
        if operands and "tt.load" in chains.sources(operands[0])[1]:
            indirect.append(op)
    if indirect:
        levels = 1  # one level is what the IR shows directly; deeper chains only lower the stages further
        per_level = (asked - 1) // (levels + 1)
        reasons.append(Reason(
            "the address of a load in the loop comes from another load in the same loop (indirection): each "
            f"level gets (num_stages − 1) / (levels + 1) = {asked - 1}/{levels + 1} → {per_level} stage(s)",
            (stages.mlir_evidence("ttir", indirect[0]),),
            f"Raise num_stages to {max(asked, 2 * (levels + 1) + 1)} so each level keeps at least 2 stages, "
            "or load the indices before the loop."))
    narrow = _narrow_loop_loads(stages)
    if narrow:
        reasons.append(Reason(
            "its loads move fewer than 4 bytes per thread at a time (cp.async copies 4, 8 or 16 bytes), so "
            "they cannot become asynchronous copies — the divisibility/stride hints are missing (see TTI005)",
            narrow, "Give the pointers 16-byte alignment and the strides/sizes divisibility by 16 (or stride 1) "
                    "so each thread loads ≥ 4 contiguous bytes; TTI005 names the argument."))
    return reasons


def _narrow_loop_loads(stages) -> tuple[Evidence, ...]:
    parsed = stages.ptx
    if parsed is None:
        return ()
    _, view = parsed
    found = []
    for op in view.loop_ops:
        if op.opcode == "ld" and "global" in op.modifiers and _access_bits(op.modifiers) < 32:
            found.append(stages.evidence("ptx", op.line))
    return tuple(found[:2])


def _access_bits(modifiers: tuple[str, ...]) -> int:
    """ld.global.v4.b32 -> 128, ld.global.b16 -> 16, ld.global.nc.v2.u16 -> 32."""
    vector = 1
    bits = 0
    for m in modifiers:
        if m.startswith("v") and m[1:].isdigit():
            vector = int(m[1:])
        elif m[:1] in ("b", "u", "s", "f") and m[1:].isdigit():
            bits = int(m[1:])
    return vector * bits


def _unique(evidence):
    seen = set()
    for e in evidence:
        key = (e.stage, e.line, e.text)
        if key not in seen:
            seen.add(key)
            yield e

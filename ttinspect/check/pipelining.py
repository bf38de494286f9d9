"""TTI001 loop-not-pipelined: num_stages > 1 was asked for, but the main loop's loads are not
asynchronous (or fewer stages deep than asked) — and why, read from the final TTIR/TTGIR/PTX and the
config.

What Triton's software pipeliner needs (its AssignLatencies / loadOpsToIndirectionLevel, Triton 3.x):
an innermost `scf.for` (not a while loop) without a GPU barrier in it, loads that feed a `tt.dot`
(unless the loop itself carries `tt.num_stages`, i.e. `tl.range(..., num_stages=N)`), loads and their dot
in the loop's own body (not under an `if`: an scf.if in the body hides them), at least 4 bytes
per thread per load (cp.async copies 4, 8 or 16), a target with cp.async (sm_80+), and a loop that
does not ask for `num_stages=1` itself. A load whose address comes from another load in the loop gets
its own stage: with I levels of indirection each level has (num_stages - 1) / (I + 1) stages, and
none when that is 0.
"""

from __future__ import annotations

from typing import Any

import re
from dataclasses import dataclass

from ttinspect.backends import backend_for
from ttinspect.check.context import fact_evidence, fact_value, stages_of
from ttinspect.check.model import Evidence, Finding
from ttinspect.check.ssa import Chains
from ttinspect.check.recorded_values import UnequalValues
from ttinspect.check.trip_count import TripCount, trip_count
from ttinspect.dialects.mlir import LOOP_OPS, is_dot

ID, SLUG = "TTI001", "loop-not-pipelined"


@dataclass(frozen=True)
class Reason:
    text: str  # why the pipeliner left the loop alone
    evidence: tuple[Evidence, ...]
    fix: str
    cause: bool = True  # False: evidence of what happened (the pass history), not a cause of its own


def loop_depth(report, stages) -> tuple[int | None, Evidence | None]:
    """The main loop's pipeline depth: the PTX fact where it is known; where it is unknown (e.g. tcgen05's
    barriers hide the stage pattern) but the loop loads from global memory with neither cp.async nor a TMA
    copy, 1 — nothing in it is asynchronous — with that as evidence. None: unknown, or no loop."""
    depth = fact_value(report, "pipeline_depth")
    if isinstance(depth, int):
        return depth, None
    try:
        reason = report.fact("pipeline_depth").unknown or ""
    except KeyError:
        return None, None
    if reason.startswith("not applicable") or stages.ptx is None:
        return None, None
    _, view = stages.ptx
    if not view.has_loop:
        return None, None
    mnemonics = [op.mnemonic + "." for op in view.loop_ops]
    if any(m.startswith("cp.async.") for m in mnemonics):
        return None, None  # cp.async or TMA (cp.async.bulk) in the loop: some copy is asynchronous
    loads = sum(1 for op in view.loop_ops if op.opcode == "ld" and "global" in op.modifiers)
    if not loads:
        return None, None
    return 1, Evidence("ptx main loop", None, f"asynchronous copies in the loop = none (no cp.async, no TMA "
                                                f"cp.async.bulk); {loads} plain ld.global")


def defaulted_num_stages(stages) -> bool:
    """True when the launch did not set num_stages (Triton's default applies); False when it did or when
    the build does not say (a Triton cache entry)."""
    config = stages.config
    return config is not None and "num_stages" not in config


def loop_stages(stages, loop) -> tuple[int | None, Evidence | None]:
    """The stages the loop asks for itself (`tl.range(..., num_stages=N)`: `tt.num_stages = N` on the TTIR
    loop's closing line), with that line as evidence; (None, None) when it leaves them to the launch."""
    if not loop.op.end_line:
        return None, None
    found = _LOOP_STAGES.search(stages.lines("ttir")[loop.op.end_line - 1])
    return (int(found[1]), stages.evidence("ttir", loop.op.end_line)) if found else (None, None)


_LOOP_STAGES = re.compile(r"\btt\.num_stages = (\d+)")


def loop_not_pipelined(report, build) -> list[Finding]:
    launch = fact_value(report, "num_stages")
    if build is None:
        return []
    stages = stages_of(build)
    loop = _loop_of_interest(stages)
    if loop is None:
        return []
    # the loop's own tl.range(num_stages=N) is what the pipeliner honours for it (a 1 there is a cause
    # below: the launch's stages, which it overrides, are what was asked of the kernel)
    own, own_line = loop_stages(stages, loop)
    asked = own if own is not None and own > 1 else launch
    if not isinstance(asked, int) or asked <= 1:
        return []  # nothing asked for
    depth, inferred = loop_depth(report, stages)
    if depth is None or depth >= asked:
        return []  # pipelined as asked, or the depth is unknown: silent
    trips = trip_count(stages.ttir, loop.op, stages.launch_args)
    if trips.value is not None and trips.value <= 1:
        return []  # it runs once (or never) for the values this build had: nothing to overlap
    reasons = _why_not_pipelined(report, build, loop, asked)
    causes = [r for r in reasons if r.cause]
    shallow = depth > 1
    if shallow and not causes:
        return []  # a shallower pipeline without a known cause is not worth a guess
    by_loop = asked == own
    evidence = [e for e in (own_line if by_loop else fact_evidence(report, "num_stages"),
                            inferred or fact_evidence(report, "pipeline_depth")) if e]
    evidence += [stages.mlir_evidence("ttir", loop.op)]
    for reason in reasons:
        evidence += reason.evidence
    why_found = " ".join(f"({n}) {r.text}" for n, r in enumerate(causes, 1)) if causes else (
        "reason unknown: the final IR shows none of the conditions ttinspect knows (a load not feeding a dot, "
        "a nested or while loop, a barrier, loads under an `if`, narrow or indirect loads, "
        "tl.range(num_stages=1), a target without cp.async)")
    history_text = " ".join(r.text for r in reasons if not r.cause)
    if history_text:
        why_found += ". " + history_text
    why_found += _trips_text(trips, stages.launch_args)
    if by_loop:  # the loop's own stages, never the launch's it overrides
        said = f"its tl.range(..., num_stages={asked})"
        title = (f"main loop pipelined {depth} stages deep, fewer than {said} asks for" if shallow else
                 f"main loop not software-pipelined although {said} asks for {asked} stages")
    else:
        said = (f"Triton's default num_stages={asked} (the launch does not set it)" if defaulted_num_stages(stages)
                else f"num_stages={asked}")
        title = (f"main loop pipelined {depth} stages deep, {said} asked for" if shallow else
                 f"main loop not software-pipelined although {said}")
    if shallow:
        matters = "Fewer loads are in flight than asked for, so less memory latency is hidden. "
    elif loop.dots:
        matters = ("Without pipelining every iteration waits for its own global loads: the tensor cores idle for "
                   "the full memory latency each K step. ")
    else:
        matters = ("Without pipelining every iteration waits for its own global loads: the loop's arithmetic "
                   "idles for the full memory latency each iteration. ")
    fixes = [r.fix for r in causes if r.fix] or [
        "Compare with `ttinspect dump REF --stage ttgir --loop`: the loop's loads stay `tt.load` instead of "
        "`ttg.async_copy_global_to_local`."]
    if trips.value is None and trips.unknowns:
        fixes.append("If it runs once for your sizes, nothing is lost: give the real value ("
                     + ", ".join(f"`--arg {name}=…`" for name in trips.unknowns)
                     + ", or the value in its place in --signature) and a loop that runs once is not reported.")
    return [Finding(ID, SLUG, "info" if shallow else "warning", title, tuple(_unique(evidence)),
                    matters + "Why: " + why_found, " ".join(fixes))]


def _trips_text(trips: TripCount, launch_args) -> str:
    """What the trip count says about the finding: how often the loop runs, or that this build cannot tell
    (an argument a capture recorded with several values is named with them: no one of them is the launch's)."""
    if trips.value is not None:
        return f". It runs {trips.value} times for the values given ({trips.formula})"
    if not trips.formula:
        return ""
    unequal = [f"{name} took {launch_args[name]}" for name in trips.unknowns
               if isinstance(launch_args.get(name), UnequalValues)]
    plain = [name for name in trips.unknowns if not isinstance(launch_args.get(name), UnequalValues)]
    are = "is a runtime argument" if len(plain) == 1 else "are runtime arguments"
    parts = ([f"{', '.join(plain)} {are} without a value"] if plain else []) + unequal
    unknown = f"unknown to this build ({'; '.join(parts)})" if parts else "unknown to this build"
    return (f". Whether it costs anything depends on how often the loop runs ({trips.formula} times), {unknown}: "
            "a loop that runs once (a pass over a row its block covers whole, say) has nothing to overlap and "
            "loses nothing")


def _loop_of_interest(stages):
    """The TTIR loop the PTX main loop comes from: the innermost loop holding a dot, else the innermost
    loop with the most loads."""
    module = stages.ttir
    return module.loop_of_interest(("tt.load",)) if module is not None else None


def _ops_in(module, loop, name: str) -> list:
    return [op for op in module.ops if op.name == name and loop.op.line < op.line <= loop.op.end_line]


def _why_not_pipelined(report, build, loop, asked: int) -> list[Reason]:
    """Every condition the final IR shows that keeps Triton's pipeliner off `loop` (a TTIR MlirLoop).

    Causes come from the final TTIR/TTGIR/PTX and the config; where the build's pass history is already
    cached (`ttinspect passes`, `check --passes`) what the pipelining passes did is added as evidence —
    never computed here (that would compile the kernel again)."""
    stages = stages_of(build)
    module = stages.ttir
    reasons: list[Reason] = []
    target = build.target
    loads = _ops_in(module, loop, "tt.load")
    load_evidence = tuple(stages.mlir_evidence("ttir", op) for op in loads[:2])
    if not backend_for(target).has_async_copy(target):
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
    barriers = [op for op in module.ops if op.name in _CTA_BARRIERS and loop.op.line < op.line <= loop.op.end_line]
    if barriers:
        reasons.append(Reason(
            "the loop holds a CTA barrier (tl.debug_barrier), which the pipeliner treats as unsafe to reorder "
            "around", (stages.mlir_evidence("ttir", barriers[0]),), "Remove the tl.debug_barrier from the loop."))
    if loop.dots == 0 and "tt.num_stages" not in closing and loads:
        reasons.append(Reason(
            "its loads feed no tl.dot; Triton pipelines such loads only when the loop asks for it", load_evidence,
            f"Write the loop as `for i in tl.range(start, end, step, num_stages={asked})`."))
    reasons += _conditional(stages, loop, loads)
    reasons += _narrow_or_indirect(stages, loop, loads, asked, target)
    reasons += _history_evidence(build)
    return reasons


# tl.debug_barrier as each release prints it: `gpu.barrier` (Triton 3.6), `ttg.barrier all` (3.9) — not the
# mbarrier ops (ttng.wait_barrier, ttng.init_barrier) a pipelined loop itself holds
_CTA_BARRIERS = frozenset({"gpu.barrier", "ttg.barrier"})


def _conditional(stages, loop, loads) -> list[Reason]:
    """Loads under an `if` in the loop body, or feeding a tl.dot under one: the pipeliner schedules a load
    only when it and the dot it feeds sit in the loop's own body (Triton 3.9, NVIDIA and AMD: the same loop
    with its loads and dot outside the `if` is pipelined), so a conditional one stays a synchronous load."""
    module = stages.ttir
    inside: dict[int, Any] = {}  # load line -> the scf.if around it (an IR op)
    for op in loads:
        found = _if_around(module, op, loop)
        if found is not None:
            inside[op.line] = found
    feeding: dict[int, Any] = {}  # load line (in the body) -> the scf.if around the dot it feeds
    chains = Chains(module)
    in_body = {op.line for op in loads} - set(inside)
    for op in module.ops:
        if loop.op.line < op.line <= loop.op.end_line and is_dot(op.name):
            found = _if_around(module, op, loop)
            for operand in chains.load_operands(op)[:2] if found is not None else ():  # the tiles it multiplies
                feeding.update({value.line: found for _, value in chains.data_loads(operand)
                                if value.line in in_body})
    if not inside and not feeding:
        return []
    ifs = sorted({op.index: op for op in (*inside.values(), *feeding.values())}.values(), key=lambda op: op.line)
    shown = _python_lines(stages, [op.line for op in ifs])
    at = f"the `if` on line {shown}" if shown else "an `if`"
    parts = [_loads_on(stages, lines, f"sit under {at} (scf.if in the loop body)" if n == 0 else
                       f"feed a tl.dot under {at}")
             for n, lines in enumerate((sorted(inside), sorted(feeding))) if lines]
    held = sorted({*inside, *feeding})
    return [Reason(
        "; ".join(parts) + ": Triton's pipeliner schedules a load only when it and the tl.dot it feeds sit in the "
        "loop's own body, so these loads are issued synchronously every iteration",
        tuple(stages.mlir_evidence("ttir", op) for op in ifs[:2]) + tuple(
            stages.evidence("ttir", line) for line in held[:2]),
        "Take the loads and the tl.dot out of the `if`: load every iteration with the condition as the mask "
        "(`tl.load(ptr, mask=cond, other=0.0)`: a masked-off tile is zeros and adds nothing to the dot), or "
        "run the loop only over the iterations where the condition holds.")]


def _python_lines(stages, lines) -> str:
    """`52` / `52, 60`: the Python lines of TTIR lines, where attribution can tell ("" when none)."""
    return ", ".join(str(n) for n in sorted({stages.python_line("ttir", line) for line in lines} - {None}))


def _loads_on(stages, lines, verb: str) -> str:
    """`the load on line 53 sits under …` / `the loads on line 53, 54 sit under …` (`verb` in the plural)."""
    shown = _python_lines(stages, lines)
    if shown and "," not in shown:
        head, rest = verb.split(" ", 1)
        return f"the load on line {shown} {head}s {rest}"
    return f"the loads on line {shown} {verb}" if shown else f"loads {verb}"


def _if_around(module, op, loop):
    """The outermost scf.if between `op` and `loop`'s own body; None when `op` sits in the body itself
    (or inside a nested loop, which is a reason of its own)."""
    found, parent = None, op.parent
    while parent is not None and parent != loop.op.index:
        around = module.ops[parent]
        if around.name in LOOP_OPS:
            return None
        if around.name == "scf.if":
            found = around
        parent = around.parent
    return found if parent == loop.op.index else None


def _history_evidence(build) -> list[Reason]:
    """What Triton's pipelining passes did, from the cached pass history (none when it is not cached)."""
    from ttinspect.passes.store import cached_history  # the pass-history store: only when findings are computed

    found = cached_history(build)
    if found is None:
        return []
    out: list[Reason] = []
    rows = {row.argument: row for row in found.passes}
    latencies = rows.get("tritongpu-assign-latencies")  # NVIDIA; AMD's schedule-loops marks no tt.latency
    if latencies is not None and latencies.facts_after.get("latency_ops") == 0:
        text = ("tritongpu-assign-latencies gave no load a latency (tt.latency), so the pipeliner had nothing to "
                "run ahead")
        out.append(Reason(f"The pass history: {text}.", (Evidence("passes", latencies.index, text),), "", False))
    pipeline = rows.get("tritongpu-pipeline") or rows.get("tritonamdgpu-pipeline")
    if pipeline is not None:
        buffers = pipeline.facts_after.get("shared_buffers") or []
        copies = pipeline.facts_after.get("async_copies") or 0
        multi = [b for b in buffers if b.count("x") >= 3]  # a leading buffer dimension: 3x128x64xf16
        if not multi and not copies:
            text = (f"{pipeline.argument} made no multi-buffered ttg.local_alloc and no asynchronous copy "
                    "(ttg.async_copy_global_to_local)")
            out.append(Reason(f"The pass history: {text}.", (Evidence("passes", pipeline.index, text),), "", False))
    return out


def _narrow_or_indirect(stages, loop, loads, asked, target) -> list[Reason]:
    reasons: list[Reason] = []
    chains = Chains(stages.ttir)
    indirect = []
    for op in loads:
        operands = chains.load_operands(op)
        # only a load of this same loop makes a level of indirection: indices loaded before the loop are
        # loop-invariant and the address is known when the copy is issued
        if operands and any(loop.op.line < value.line <= loop.op.end_line
                            for value in chains.loads_feeding(operands[0])):
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
    narrow = backend_for(target).narrow_loop_loads(stages)
    if narrow:
        lines = sorted({e.python_line for e in narrow if e.python_line is not None})
        where = f" (line {', '.join(map(str, lines))})" if lines else ""
        descriptors = [name for name, kind in (stages.signature or {}).items() if kind.startswith("tensordesc")]
        text, fix = backend_for(target).narrow_loop_reason(target, where, descriptors)
        reasons.append(Reason(text, narrow, fix))
    return reasons


def _unique(evidence):
    seen = set()
    for e in evidence:
        key = (e.stage, e.line, e.text)
        if key not in seen:
            seen.add(key)
            yield e

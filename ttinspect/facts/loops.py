"""Facts per loop (every loop of the kernel, nested ones included), and pipeline depth from two witnesses.

Each TTGIR loop (facts/loop_ir.py) is matched to the PTX loop that runs it: the PTX loop whose own
instructions come from the most of the same Python lines (`.loc`), among loops of the same kind — a loop
with dot ops only to one with tensor-core instructions, a loop with asynchronous copies only to one with
cp.async / TMA. A PTX loop with no TTGIR counterpart (the dispatch loop that parks warp-specialized
workers) is left out; a TTGIR loop with no PTX loop (LLVM removed or unrolled it) has its PTX facts unknown.

Pipeline depth (num_stages) is read twice, independently:
- PTX: `cp.async.wait_group W` with L commit groups per iteration → W / L + 2; TMA: one `mbarrier.init`
  per stage before the loop (Hopper), plus two tcgen05 completion barriers on Blackwell (measured on
  Triton 3.6 and 3.9, sm_100, num_stages 1–6, two kernels: S + 2 inits); plain loads only → 1.
- TTGIR: the ring the loop's copies write into has B slots. The loop keeps B = num_stages slots when its
  MMA is asynchronous (wgmma, tcgen05: the MMA may still read the slot the copies would refill), and
  B = num_stages − 1 otherwise (mma.sync, or no MMA) — measured on sm_80/86/89/90/100/120, Triton 3.6/3.9.
  A warp-specialized loop's channel is the ring between partitions: its depth is B.
Agreeing readings make a known fact that says so; readings that differ make it unknown with both shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ttinspect.dialects.mlir import MlirModule
from ttinspect.dialects.ptx import PtxModule
from ttinspect.facts.loop_ir import IrLoop, ir_loops
from ttinspect.facts.model import Fact, counts, known, unknown
from ttinspect.facts.pipeline import EXPLANATION as DEPTH_EXPLANATION
from ttinspect.facts.pipeline import barriers_before_loop, pipeline_depth
from ttinspect.facts.ptx import OpIndex, PtxView, first_immediate, sorted_immediates
from ttinspect.facts.warp_spec import warp_spec_facts

KEY, TITLE, GROUP = "pipeline_depth", "pipeline depth (num_stages)", "pipeline"
LOOP_GROUP = "loop"  # groups of per-loop facts are "loop 2 · line 35 · tile loop"


@dataclass(frozen=True)
class Reading:
    """One witness's reading of a depth: a value with how it was read, or None with why not."""

    value: int | None
    how: str


def ptx_reading(view: PtxView | None, warp_specialized: bool = False) -> Reading:
    if view is None:
        return Reading(None, "no PTX loop runs this loop (LLVM removed or unrolled it)")
    if warp_specialized:
        return Reading(None, "warp-specialized: every partition's barriers (ready and empty per slot, the "
                             "accumulator's) are initialized together, so their count does not give the channel")
    kinds = {_copy_kind(op) for op in view.loop_ops}
    if not kinds - {None} and not any(op.opcode == "ld" and "global" in op.modifiers for op in view.loop_ops):
        return Reading(None, "not applicable: the loop loads nothing from global memory")
    fact = pipeline_depth(view)
    if fact.known:
        return Reading(fact.value, _read_here(fact.explanation))
    if "TMA" in kinds and any((i.mnemonic + ".").startswith("tcgen05.mma.") for i in view.ops):
        inits = barriers_before_loop(view)
        if inits > 2:
            return Reading(inits - 2, f"{inits} mbarrier.init before the loop − 2 tcgen05 completion barriers "
                                      "(Blackwell: one barrier per stage beside them, measured)")
        return Reading(None, f"TMA with tcgen05 and {inits} mbarrier.init before the loop: fewer than the "
                             "measured pattern (stages + 2)")
    return Reading(None, fact.unknown or "no pattern")


def _read_here(explanation: str) -> str:
    marker = "Read here"
    at = explanation.find(marker)
    return explanation[at + len(marker):].lstrip(" :as").rstrip(".") if at >= 0 else explanation


def ttgir_reading(loop: IrLoop | None) -> Reading:
    if loop is None:
        return Reading(None, "no TTGIR loop matched (its source lines differ)")
    rings = loop.copy_rings
    if loop.partition is not None:
        # the producer's data ring and its barrier ring, or (the consumer) the barrier ring it waits on
        ring = set(rings) | set(loop.tma_barrier_rings) if rings else set(loop.barrier_rings)
        if len(ring) == 1:
            slots = ring.pop()
            return Reading(slots, f"a {slots}-slot ring between the warp-specialized partitions "
                                  f"(channel depth = slots)")
        return Reading(None, f"rings of {', '.join(map(str, sorted(ring))) or 'no'} slots between partitions")
    if not rings:
        if loop.loads:
            kinds = ", ".join(f"{k}×{n}" for k, n in loop.loads)
            return Reading(1, f"no multi-buffered ring; the loop loads for itself ({kinds})")
        return Reading(None, "not applicable: the loop loads nothing")
    if len(set(rings)) != 1:
        return Reading(None, f"its copies write rings of {', '.join(map(str, rings))} slots")
    slots = rings[0]
    if loop.mma == "async":
        return Reading(slots, f"a {slots}-slot ring of shared memory (ttg.local_alloc {slots}x…), "
                              "num_stages slots with an asynchronous MMA")
    return Reading(slots + 1, f"a {slots}-slot ring of shared memory (ttg.local_alloc {slots}x…), "
                              "num_stages − 1 slots without an asynchronous MMA")


def depth_fact(ptx: Reading, ttgir: Reading, key: str = KEY, group: str = GROUP) -> Fact:
    """Known when the witnesses agree (or only one can read it, which the fact says); unknown with both
    readings when they disagree — never a pick."""
    source = "ptx + ttgir"
    if ptx.value is not None and ttgir.value is not None:
        if ptx.value == ttgir.value:
            return known(key, TITLE, group, ptx.value,
                         f"{DEPTH_EXPLANATION}. Two witnesses agree: PTX {ptx.how}; TTGIR {ttgir.how}", source)
        return unknown(key, TITLE, group, f"the witnesses disagree: PTX reads {ptx.value} ({ptx.how}); TTGIR reads "
                       f"{ttgir.value} ({ttgir.how})", DEPTH_EXPLANATION, source)
    if ptx.value is not None or ttgir.value is not None:
        one, name, other, other_name = ((ptx, "PTX", ttgir, "TTGIR") if ptx.value is not None
                                        else (ttgir, "TTGIR", ptx, "PTX"))
        return known(key, TITLE, group, one.value,
                     f"{DEPTH_EXPLANATION}. One witness: {name} {one.how}; {other_name}: {other.how}", source)
    for reading in (ptx, ttgir):
        if reading.how.startswith("not applicable"):
            return unknown(key, TITLE, group, reading.how, DEPTH_EXPLANATION, source)
    return unknown(key, TITLE, group, f"PTX: {ptx.how}; TTGIR: {ttgir.how}", DEPTH_EXPLANATION, source)


def match_loops(ir: tuple[IrLoop, ...], ptx: Sequence[tuple[object, PtxView]], kernel: Any) -> dict[int, PtxView]:
    """IR loop index → the PTX view of the loop that runs it (see the module docstring)."""
    lines = [_ptx_lines(view, kernel) for _, view in ptx]
    kinds = [(_has_tensor(view), _has_copies(view)) for _, view in ptx]
    pairs = []
    for loop in ir:
        kind = (loop.dots > 0, any(k in ("cp.async", "TMA") for k, _ in loop.loads))
        for j in range(len(ptx)):
            score = len(loop.lines & lines[j])
            if score and kinds[j] == kind:
                # Outer loops choose first: LLVM may unroll an inner loop into its parent's PTX loop, never
                # the reverse. Equal scores (one helper's loop called twice, on one line): text order on
                # both sides, as Triton emits the loops in order.
                pairs.append((loop.nesting, -score, loop.index, ptx[j][1].loop_first_line, j))
    out: dict[int, PtxView] = {}
    used: set[int] = set()
    for *_, index, _first, j in sorted(pairs):
        if index not in out and j not in used:
            out[index] = ptx[j][1]
            used.add(j)
    return out


def _ptx_lines(view: PtxView, kernel) -> frozenset[int]:
    """The Python lines of a PTX loop's own instructions (`.loc`), and their call sites where inlined."""
    out = set()
    for i in view.loop_indices:
        pos = kernel.source_pos(i)
        if pos is None:
            continue
        out.add(pos.line)
        if pos.inlined_at is not None:
            out.add(pos.inlined_at[1])
    return frozenset(out)


def _has_tensor(view: PtxView) -> bool:
    return any(op.is_tensor_core for op in view.loop_ops)


def _copy_kind(op) -> str | None:
    """cp.async.cg.shared.global → "cp.async"; cp.async.bulk.tensor.2d.shared::cta.global.mbarrier… → "TMA";
    anything else (commit / wait groups, TMA stores to global) → None."""
    mods = op.modifiers
    if op.opcode != "cp" or mods[:1] != ("async",):
        return None
    if mods[1:2] in (("ca",), ("cg",)):
        return "cp.async"
    if mods[1:3] == ("bulk", "tensor") and len(mods) > 4 and mods[4].startswith("shared"):
        return "TMA"
    return None


def _has_copies(view: PtxView) -> bool:
    return any(_copy_kind(op) for op in view.loop_ops)


def loop_facts(ir: tuple[IrLoop, ...], module: PtxModule, num_stages: int | None) -> tuple[list[Fact], dict]:
    """Every loop's facts (grouped per loop: `loop_group(loop)`), and IR loop index → PTX view."""
    per_loop = PtxView.per_loop(module)
    matched = match_loops(ir, per_loop, module.kernel) if module.kernel is not None else {}
    facts: list[Fact] = []
    for loop in ir:
        facts += _one_loop(loop, matched.get(loop.index), num_stages)
    return facts, matched


def loop_group(loop: IrLoop, unrolled: bool = False) -> str:
    where = f"line {loop.line}" if loop.line else "line unknown"
    part = f" · {loop.partition}" if loop.partition else ""
    role = f"{loop.role}, unrolled whole by LLVM" if unrolled else loop.role
    return f"{LOOP_GROUP} {loop.index} · {where} · {role}{part}"


def unrolled(loop: IrLoop, view: PtxView | None) -> bool:
    """A loop of constant trip count that no PTX loop runs: LLVM unrolled it into straight-line code."""
    return view is None and loop.trips is not None and loop.trips > 1


def unrolled_text(loops: Sequence[IrLoop]) -> str:
    """`loop 1 (line 98, 4 trips)` for each loop LLVM unrolled whole."""
    return ", ".join(f"{LOOP_GROUP} {loop.index} ({f'line {loop.line}, ' if loop.line else ''}{loop.trips} trips)"
                     for loop in loops)


def _one_loop(loop: IrLoop, view: PtxView | None, num_stages: int | None) -> list[Fact]:
    whole = unrolled(loop, view)
    group = loop_group(loop, whole)
    prefix = f"loop{loop.index}."
    out: list[Fact] = []
    # a loop LLVM unrolled has no iteration in the PTX: its per-iteration facts do not apply, and its
    # instructions are the kernel's straight-line code, which the kernel's own facts count
    counted = f"loop {loop.parent}'s facts count" if loop.parent is not None else "the kernel's facts count"
    absent = (f"not applicable: LLVM unrolled its {loop.trips} trips (constant bounds) into straight-line code: "
              f"no PTX loop runs it; {counted} its instructions" if whole else "no PTX loop runs this loop")

    def add(key, title, value, explanation, source):
        out.append(known(prefix + key, title, group, value, explanation, source))

    def ptx(key, title, value_of, explanation):
        if view is None:
            out.append(unknown(prefix + key, title, group, absent, explanation, "ptx"))
        else:
            add(key, title, value_of(OpIndex(view.loop_ops)), explanation, "ptx loop")

    add("line", "Python line of the loop", loop.line if loop.line else "unknown",
        "the `for` line the loop comes from (its location in the TTGIR); for a loop in an inlined "
        "@triton.jit helper, the kernel's line that calls the helper", "ttgir")
    add("role", "role", loop.role,
        "K loop: holds the dot ops; tile loop: walks output tiles around a K loop (a persistent kernel); "
        "flattened: tl.range(flatten=True) made the two one loop", "ttir + ttgir")
    if loop.parent is not None:
        add("parent", "inside loop", loop.parent, "the enclosing loop's number", "ttgir")
    if loop.partition is not None:
        add("partition", "warp-specialize partition", loop.partition,
            "which warps run this loop: a worker partition, or the default warps", "ttgir")
    asked, whence = (loop.requested_stages, "tl.range(num_stages=…)") if loop.requested_stages is not None \
        else (num_stages, "the kernel's num_stages option")
    ptx_read, ir_read = ptx_reading(view, loop.partition is not None), ttgir_reading(loop)
    depth = unknown(prefix + KEY, TITLE, group, absent, DEPTH_EXPLANATION, "ptx + ttgir") if whole \
        else depth_fact(ptx_read, ir_read, prefix + KEY, group)
    out.append(depth)
    # asked: tl.range(num_stages=...) on the loop, or the kernel's option for a loop with dots (the one the
    # pipeliner applies it to); a plain reduction loop nobody asked anything of gets no verdict
    if asked is not None and depth.known and (loop.requested_stages is not None or loop.dots):
        verdict = "yes" if depth.value == asked else f"no: asked {asked}, built {depth.value}"
        add("depth_as_asked", "depth as asked", verdict,
            f"the depth set against {whence} = {asked}: a loop the pipeliner could not pipeline, or a "
            "warp-specialized loop whose channel follows the kernel's num_stages, says no", "ttgir + ptx")
    add("dots", "dot ops per iteration (TTGIR)", loop.dots, "tt.dot / wgmma / tcgen05 MMA ops in one trip", "ttgir")
    add("loads", "loads per iteration (TTGIR)", loop.loads,
        "loads in one trip by kind: tt.load (registers), cp.async and TMA (asynchronous copies into shared "
        "memory), descriptor load (not yet lowered)", "ttgir")
    ptx("tensor_core_ops", "tensor-core instructions per iteration",
        lambda i: sum(1 for op in i.ops if op.is_tensor_core),
        "mma / wgmma / tcgen05.mma instructions one trip issues")
    ptx("commit_groups", "cp.async.commit_group per iteration", lambda i: i.count("cp.async.commit_group"),
        "commit groups closed per trip: one per pipelined load")
    ptx("wait_group", "cp.async.wait_group in the loop",
        lambda i: sorted_immediates(first_immediate(op) for op in i.starting("cp.async.wait_group")),
        "cp.async.wait_group N: at most N committed groups may still be pending")
    ptx("async_copies", "asynchronous copies per iteration",
        lambda i: counts(kind for kind in map(_copy_kind, i.starting("cp.async")) if kind),
        "global→shared copies one trip issues: cp.async (per thread) or TMA (cp.async.bulk.tensor)")
    ptx("barrier_waits", "mbarrier waits per iteration",
        lambda i: sum(1 for op in i.starting("mbarrier") if op.modifiers[:1] in (("try_wait",), ("test_wait",))),
        "waits on shared-memory barriers (TMA arrival, MMA completion, a partner partition)")
    return out


def kernel_loop_facts(ttgir: MlirModule, ttir: MlirModule | None, ptx: PtxModule, view: PtxView, ptx_text: str,
                      num_stages: int | None) -> tuple[Fact, list[Fact]]:
    """From the parsed stages: the kernel's pipeline depth (its main loop, two witnesses) and the
    warp-specialization and per-loop facts. One path for a build's artifacts and for the JIT's own files
    (scripts/device_loop_facts.py compares the two on a GPU)."""
    module = ttgir
    loops = ir_loops(module, ttir)
    facts, matched = loop_facts(loops, ptx, num_stages)
    depth_of = {int(f.key[4:].split(".")[0]): f for f in facts if f.key.endswith(".pipeline_depth")}
    facts = warp_spec_facts(module, ptx_text, loops, depth_of) + facts
    if not view.has_loop:
        gone = [loop for loop in loops if unrolled(loop, matched.get(loop.index))]
        if gone:  # one story: the IR's loop is there, the PTX's is not, and the reason is said once
            return unknown(KEY, TITLE, GROUP, f"not applicable: the PTX has no loop: LLVM unrolled "
                           f"{unrolled_text(gone)} whole", DEPTH_EXPLANATION, "ptx main loop"), facts
        return pipeline_depth(view), facts
    main = next((loop for loop in loops if loop.index in matched
                 and matched[loop.index].loop_first_line == view.loop_first_line), None)
    ws = main is not None and main.partition is not None
    return depth_fact(ptx_reading(view, ws), ttgir_reading(main)), facts

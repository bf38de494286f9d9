"""The rules only a Gluon kernel needs: its author chose the layouts and the pipeline, so what they cost is
the author's to fix (a Triton kernel's conversions and depth are the compiler's, TTI001's business).

- TTI008 convert-layout-in-loop: a `gl.convert_layout` inside a loop runs on every iteration; between layouts
  that map elements to threads differently it is a round trip through shared memory with a barrier.
- TTI009 serialized-ring: the kernel loads through TMA inside a loop and waits on an mbarrier there, but its
  ring has a single buffer: each iteration waits for the load it has just issued, so nothing overlaps.

Both read the TTGIR after Gluon's passes (facts/gluon.py): what will run, located at the author's lines.
"""

from __future__ import annotations

from ttinspect.check.context import fact_evidence, fact_value, stages_of
from ttinspect.check.model import Evidence, Finding
from ttinspect.facts.gluon import WAIT_OPS, loop_converts

CONVERT_ID, CONVERT_SLUG = "TTI008", "convert-layout-in-loop"
RING_ID, RING_SLUG = "TTI009", "serialized-ring"
_TMA_LOADS = frozenset({"ttng.async_tma_copy_global_to_local", "ttng.async_tma_gather"})


def _gluon(build) -> bool:
    return build is not None and build.artifacts.has("glir")


def convert_layout_in_loop(report, build) -> list[Finding]:
    if not _gluon(build):
        return []
    stages = stages_of(build)
    module = stages.ttgir
    if module is None:
        return []
    converts = loop_converts(module)
    if not converts:
        return []
    main = module.main_loop
    in_main = [op for op in converts if main is not None and main.op.line < op.line <= main.op.end_line]
    where = "the main loop (the one holding the MMA)" if in_main else "a loop"
    lines = sorted({line for op in converts if (line := stages.python_line("ttgir", op.line)) is not None})
    at = f" (line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))})" if lines else ""
    lowered = _lowered_in_loop(stages, set(lines))
    through_shared = lowered is not None and _has(lowered, _STORES) and _has(lowered, _BARRIERS + _LOADS)
    evidence = [stages.mlir_evidence("ttgir", op) for op in converts[:3]]
    if lowered:
        evidence.append(Evidence("ptx", None, "the loop's instructions on those lines: " + ", ".join(
            f"{name}×{count}" for name, count in sorted(lowered.items())), None))
    how = ("It goes through shared memory: the PTX of the loop stores the tile to shared memory, waits on a "
           "barrier and reads it back, every iteration, on the loop's critical path."
           if through_shared else
           "The PTX of the loop has no shared-memory round trip on those lines: it is lowered in registers "
           "(shuffles or nothing at all), so it costs little." if lowered is not None else
           "Whether it goes through shared memory is not read for this target (no PTX).")
    return [Finding(
        CONVERT_ID, CONVERT_SLUG, "warning" if in_main and through_shared else "info",
        f"{len(converts)} layout conversion(s) inside {where}{at}" +
        (", through shared memory" if through_shared else ""),
        tuple(evidence),
        "A gl.convert_layout is paid on every iteration it sits in. " + how,
        "Produce the tensor in the layout its consumer needs: load it from shared memory straight into that "
        "layout (`smem.load(DotOperandLayout(...))` for a wgmma/mma operand), or convert once outside the "
        "loop. `ttinspect dump REF --stage glir` shows the layouts each side has.")]


_STORES = ("st.shared", "stmatrix")
_LOADS = ("ld.shared", "ldmatrix")
_BARRIERS = ("bar.sync", "barrier.sync")


def _has(counts: dict[str, int], prefixes: tuple[str, ...]) -> bool:
    return any(name.startswith(prefixes) for name in counts)


def _lowered_in_loop(stages, python_lines: set[int]) -> dict[str, int] | None:
    """The shared-memory stores, loads and barriers the PTX has inside its loops (any of them) on
    `python_lines` (the conversions' own lines), by mnemonic; None when it cannot be read: no PTX, no line
    attribution, or no instruction of any loop on those lines."""
    parsed = stages.ptx
    if parsed is None or not python_lines:
        return None
    _, view = parsed
    kernel = view.kernel
    if kernel is None or not view.has_loop:
        return None
    in_loops = {index for loop in kernel.cfg.loops for index in kernel.cfg.loop_instructions(loop)}
    counts: dict[str, int] = {}
    seen = False
    for index in in_loops:
        instruction = kernel.instruction(index)
        if stages.python_line("ptx", instruction.line) not in python_lines:
            continue
        seen = True
        name = ".".join(instruction.mnemonic.split(".")[:2])
        if name.startswith(_STORES + _LOADS + _BARRIERS):
            counts[name] = counts.get(name, 0) + 1
    return counts if seen else None


def serialized_ring(report, build) -> list[Finding]:
    if not _gluon(build) or fact_value(report, "ring_depth") != 1:
        return []
    stages = stages_of(build)
    module = stages.ttgir
    if module is None:
        return []
    loads = [op for op in module.ops if op.name in _TMA_LOADS and module.in_loop(op)]
    waits = [op for op in module.ops if op.name in WAIT_OPS and module.in_loop(op)]
    if not loads or not waits:
        return []
    evidence = [e for e in (fact_evidence(report, "ring_depth"),) if e]
    evidence += [stages.mlir_evidence("ttgir", loads[0]), stages.mlir_evidence("ttgir", waits[0])]
    return [Finding(
        RING_ID, RING_SLUG, "warning",
        "TMA loads in a loop through a ring of 1 buffer: every iteration waits for the load it just issued",
        tuple(evidence),
        "With one buffer per operand the next tile cannot be loaded while the current one is used, so each "
        "iteration pays the full global-memory latency before its MMA starts — the loop is not pipelined.",
        "Allocate NUM_BUFFERS ≥ 2 slots (e.g. gl.allocate_shared_memory(dtype, [NUM_BUFFERS, BM, BK], layout)) "
        "with one mbarrier each, issue the loads NUM_BUFFERS − 1 iterations ahead, and wait on slot "
        "i % NUM_BUFFERS.")]

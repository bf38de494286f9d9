"""Pipeline depth (= num_stages) inferred from the PTX alone, or "unknown" with the reason.

The patterns, measured on Triton 3.6 and 3.9 (shared/notes/triton36-ptx-facts.md, triton-versions.md):
- cp.async path (sm_80 .. sm_120, also Hopper's and Blackwell's non-TMA loads): each pipelined load
  is its own commit group, so one trip around the main loop closes L groups, and the loop waits with
  `cp.async.wait_group W`, W = L × (num_stages − 2): "at most W groups may still be pending", i.e.
  num_stages − 2 iterations' loads stay in flight while this one's are consumed. So
  num_stages = W / L + 2. Triton 3.9 repeats the same wait before each use; the immediates agree.
- TMA path (Hopper host tensor descriptors): one mbarrier per stage, `mbarrier.init` × num_stages
  before the loop, and the loop waits on a barrier (`mbarrier.try_wait`) instead of a commit group;
  with num_stages = 1 the loop itself inits, fills, waits on and invalidates one barrier.
- num_stages = 1: the loop issues plain loads and no asynchronous copies at all (not pipelined).
Anything else is "unknown", with what was seen.
"""

from __future__ import annotations

from ttinspect.facts.model import Fact, known, unknown
from ttinspect.facts.ptx import PtxView, first_immediate

KEY, TITLE, GROUP = "pipeline_depth", "pipeline depth (num_stages)", "pipeline"
EXPLANATION = ("num_stages: the loop loads num_stages − 1 K steps ahead; when it waits for this step's tiles, "
               "the next num_stages − 2 steps' copies stay in flight (1 = not pipelined)")


def pipeline_depth(view: PtxView) -> Fact:
    def fail(reason: str) -> Fact:
        return unknown(KEY, TITLE, GROUP, reason, EXPLANATION, "ptx main loop")

    if not view.has_loop:
        return fail(f"not applicable: {view.loop_reason}")
    loop = view.loop_ops  # the instructions facts read (ptx.RELEVANT), mnemonics tested once each
    tagged = [(i, i.mnemonic + ".") for i in loop]
    commits = sum(1 for _, m in tagged if m.startswith("cp.async.commit_group."))
    waits = [first_immediate(i) for i, m in tagged if m.startswith("cp.async.wait_group.")]
    # TMA loads only (cp.async.bulk.tensor.2d.shared::cta.global...): a TMA store is no stage
    tma_in_loop = any(m.startswith("cp.async.bulk.tensor.") and i.modifiers[4:5] and i.modifiers[4].startswith("shared")
                      for i, m in tagged)
    barrier_waits = any(i.opcode == "mbarrier" and i.modifiers[:1] in (("try_wait",), ("test_wait",))
                        for i in loop)
    if tma_in_loop:
        inits = _tma_barriers(view)
        if inits is None and any(m.startswith("mbarrier.init.") for _, m in tagged):
            return known(KEY, TITLE, GROUP, 1,
                         f"{EXPLANATION}. Read here: the loop creates its barrier, issues the TMA copy "
                         "and waits for it in the same iteration", "ptx main loop")
        if any((i.mnemonic + ".").startswith("tcgen05.mma.") for i in view.ops):
            # measured: on sm_100 the tcgen05 completion barriers are initialized before the loop as
            # well (S + 2 inits for S stages); facts/loops.py reads that pattern, as a measured rule
            return fail("TMA with tcgen05 (Blackwell): its MMA-completion barriers are initialized beside the "
                        "stage barriers")
        if inits is None:
            return fail("TMA loads in the loop, but no mbarrier.init to count stages")
        return known(KEY, TITLE, GROUP, inits,
                     f"{EXPLANATION}. Read here from {inits} mbarrier.init before the loop: TMA "
                     "pipelines keep one barrier per stage", "ptx")
    if commits and waits:
        wait = waits[0]
        if wait is None or len(set(waits)) != 1:  # all equal and the first known: none is None
            return fail(f"the loop's cp.async.wait_group immediates differ ({sorted(set(map(str, waits)))})")
        if wait % commits:
            return fail(f"wait_group {wait} is not a multiple of the {commits} commit groups per iteration")
        depth = wait // commits + 2
        return known(KEY, TITLE, GROUP, depth,
                     f"{EXPLANATION}. Read here as wait_group {wait} / {commits} commit groups per "
                     f"iteration + 2", "ptx main loop")
    if commits or waits:
        return fail(f"{commits} commit groups and {len(waits)} wait_group in the loop: no known pattern")
    if barrier_waits:
        return fail("the loop waits on mbarriers without TMA copies in it (e.g. tcgen05 MMA completion): "
                    "no stage pattern to read")
    loads = sum(1 for i in loop if i.opcode == "ld" and "global" in i.modifiers)
    if loads:
        return known(KEY, TITLE, GROUP, 1,
                     f"{EXPLANATION}. Read here: {loads} plain ld.global in the loop and no asynchronous "
                     "copies", "ptx main loop")
    return fail("not applicable: the main loop loads nothing from global memory")


def _tma_barriers(view: PtxView) -> int | None:
    """mbarrier.init before the loop's first line (and after any earlier loop: another loop's barriers
    are not this one's stages)."""
    count = barriers_before_loop(view)
    return count or None


def barriers_before_loop(view: PtxView) -> int:
    """`mbarrier.init` between the end of the last loop that ends before this loop and this loop's first
    line: the barriers Triton sets up for this loop."""
    if not view.loop_first_line:
        return 0
    first = view.loop_first_line
    start = 0
    if view.kernel is not None:
        cfg = view.kernel.cfg
        ends = [cfg.span(loop).end_line for loop in cfg.loops]
        start = max((end for end in ends if end < first), default=0)
    return sum(1 for i in view.ops if start < i.line < first and (i.mnemonic + ".").startswith("mbarrier.init."))

"""cfg.py on hand-made graphs, and loops.main_loop_slice on every captured stage."""

from __future__ import annotations

from collections import Counter

import pytest
from golden_option import DATA, captured, check_golden, params

from ttinspect.errors import UsageError
from ttinspect.dialects.loop_slice import LoopSlice, NoMainLoop, slice_text
from ttinspect.dialects.main_loop import main_loop_slice
from ttinspect.dialects.cfg import Block, build_cfg, pick_main_loop
from ttinspect.dialects.ptx import parse_ptx

STAGE_OF = {"cuobjdump": "sass"}


def graph(edges: dict[int, tuple[int, ...]], sizes: dict[int, int] | None = None):
    """Blocks 0..n-1, laid out in index order, 10 lines each."""
    n = max([*edges, *(s for succ in edges.values() for s in succ)]) + 1
    blocks, first = [], 0
    for i in range(n):
        size = (sizes or {}).get(i, 5)
        blocks.append(Block(i, f"B{i}", 10 * i + 1, 10 * i + 10, edges.get(i, ()), first, first + size))
        first += size
    return build_cfg(blocks)


def test_diamond_has_no_loop_and_dominators():
    cfg = graph({0: (1, 2), 1: (3,), 2: (3,)})
    assert cfg.loops == () and cfg.idom == (None, 0, 0, 0)
    assert cfg.dominates(0, 3) and not cfg.dominates(1, 3)


def test_nested_loops():
    # 0 -> 1 (outer header) -> 2 (inner header) -> 3 -> 2 (inner back edge); 3 -> 4 -> 1; 1 -> 5
    cfg = graph({0: (1,), 1: (2, 5), 2: (3,), 3: (2, 4), 4: (1,)})
    assert len(cfg.loops) == 2
    outer, inner = cfg.loops
    assert (outer.header, outer.blocks, outer.depth, outer.children) == (1, (1, 2, 3, 4), 1, (1,))
    assert (inner.header, inner.blocks, inner.depth, inner.parent) == (2, (2, 3), 2, 0)
    assert cfg.loop_of(3) is inner and cfg.loop_of(4) is outer and cfg.loop_of(5) is None
    assert inner.exits == (4,) and outer.exits == (5,)


def test_latch_laid_out_before_header():
    """sm_100 PTX: preheader -> header (block 3), the latch (block 1) comes first in the text."""
    cfg = graph({0: (3,), 1: (3, 2), 3: (4, 1), 4: (1,)})
    (loop,) = cfg.loops
    assert loop.header == 3 and loop.latches == (1,) and loop.blocks == (1, 3, 4)
    span = cfg.span(loop)
    assert (span.start_line, span.end_line, span.gaps) == (11, 50, ((21, 30),))


def test_irreducible_and_unreachable():
    cfg = graph({0: (1, 2), 1: (2,), 2: (1,), 3: (3,)})  # 1 <-> 2 entered twice; 3 unreachable
    assert cfg.loops == () and cfg.irreducible_edges == 1 and cfg.reachable == (True, True, True, False)


def test_pick_main_loop_rules():
    cfg = graph({0: (1,), 1: (2,), 2: (1, 3), 3: (4,), 4: (4, 5)}, sizes={4: 2})
    tensor = [0, 0, 3, 0, 0]
    main = pick_main_loop(cfg, tensor, "mma")
    assert main.rule == "tensor-core" and main.loop.header == 1 and main.tensor_ops == 3
    largest = pick_main_loop(cfg, [0] * 5, "mma")
    assert largest.rule == "largest" and largest.loop.header == 1  # the 2-instruction spin is trivial
    assert pick_main_loop(graph({0: (1,), 1: (1,)}, sizes={1: 2}), [0, 0], "mma") is None
    assert pick_main_loop(graph({0: (1,)}), [0, 0], "mma") is None


def _stage(path) -> str:
    ext = path.suffix[1:]
    return STAGE_OF.get(ext, ext)


@pytest.mark.parametrize("path", params("ptx", "ttgir", "ttir", "sass", "llir", "cuobjdump"))
def test_main_loop_slice(path):
    text = path.read_text()
    result = main_loop_slice(_stage(path), text)
    variant = path.name.split("-")[0]
    if variant == "add":
        assert isinstance(result, NoMainLoop) and "no loop" in result.reason
        return
    assert isinstance(result, LoopSlice) and result.reason and result.depth == 1
    assert 1 <= result.start_line <= result.header_line <= result.end_line <= len(text.split("\n"))
    assert result.rule == ("largest" if variant == "softmax" else "tensor-core")
    assert result.contiguous == (not result.gaps)
    assert ("not contiguous" in result.reason) == bool(result.gaps)
    body = slice_text(text, result)
    assert len(body.split("\n")) == result.line_count
    if variant == "softmax":
        strict = main_loop_slice(_stage(path), text, strict=True)
        assert isinstance(strict, NoMainLoop) and strict.loops == 1


def test_golden_slices(request):
    table = {}
    for path in captured("ptx", "ttgir", "ttir", "sass", "llir", "cuobjdump"):
        result = main_loop_slice(_stage(path), path.read_text())
        table[f"{path.parent.name}/{path.name}"] = (
            [result.start_line, result.end_line, result.rule, [list(g) for g in result.gaps]]
            if isinstance(result, LoopSlice) else result.reason)
    check_golden(request.config, "loop-slices", table)


@pytest.mark.parametrize("version", sorted(p.name for p in DATA.glob("triton-*")))
@pytest.mark.parametrize("variant", ["naive", "opt"])
@pytest.mark.parametrize("arch", ["sm_80", "sm_90", "sm_100"])
def test_stages_agree_on_the_loop_source_line(version, variant, arch):
    """The scf.for in TTGIR and the PTX main loop come from the same line of the kernel."""
    from ttinspect.dialects.mlir import parse_mlir

    base = DATA / version / f"{variant}-{arch}"
    mlir = parse_mlir(base.with_suffix(".ttgir").read_text())
    for_line = mlir.resolve(mlir.main_loop.op).kernel_site.line
    ptx = parse_ptx(base.with_suffix(".ptx").read_text())
    lines = Counter(i.loc.inlined_at[1] if i.loc.inlined_at else i.loc.line
                    for i in ptx.kernel.loop_instructions(ptx.main_loop.loop) if i.loc and i.loc.file == 1)
    assert for_line in lines


def test_sm100_ptx_gap_is_the_exit_stub():
    path = DATA / "triton-3.6.0" / "naive-sm_100.ptx"
    text = path.read_text()
    result = main_loop_slice("ptx", text)
    (gap,) = result.gaps
    assert gap[0] == gap[1] and "bra.uni" in text.split("\n")[gap[0] - 1]
    assert result.header_line > result.start_line  # the latch comes first


@pytest.mark.parametrize("stage,text", [("ptx", ""), ("llir", ""), ("sass", ""), ("ttgir", ""),
                                        ("ttir", "module {\n}\n")])
def test_no_kernel(stage, text):
    result = main_loop_slice(stage, text)
    assert isinstance(result, NoMainLoop) and result.start_line is None and "no " in result.reason


def test_unknown_stage():
    with pytest.raises(UsageError):
        main_loop_slice("cubin", "")

"""The TTIR / TTGIR parser: ops and regions, loops, the dot loop, layouts, locations."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden_option import DATA, check_golden, golden_name, params, summarize_mlir

from ttinspect.errors import ParseError
from ttinspect.dialects.mlir import is_dot, parse_mlir

V36 = DATA / "triton-3.6.0"


def _parse(path: Path):
    return parse_mlir(path.read_text(), stage=path.suffix[1:])


@pytest.mark.parametrize("path", params("ttir", "ttgir"))
def test_golden_summary(path, request):
    check_golden(request.config, golden_name(path), summarize_mlir(_parse(path)))


@pytest.mark.parametrize("path", params("ttir", "ttgir"))
def test_main_loop_holds_the_dot(path):
    module = _parse(path)
    main = module.main_loop
    assert module.kernel_name.endswith("_kernel") and main is not None and main.op.name == "scf.for"
    inside = module.op_counts(within=main.op)
    arch = path.stem.split("-")[-1]
    expected = {"ttir": "tt.dot"}.get(path.suffix[1:]) or {
        "sm_80": "tt.dot", "sm_90": "ttng.warp_group_dot", "sm_100": "ttng.tc_gen5_mma"}[arch]
    assert inside[expected] >= 1 and main.dots == sum(n for op, n in inside.items() if is_dot(op))
    assert module.ops[main.op.index].end_line == main.end_line > main.start_line
    # the loop's location is on its closing line and resolves to the kernel's `for` line
    loc = module.resolve(main.op)
    kernel_file = loc.kernel_site.file
    source_line = Path(kernel_file).read_text().split("\n")[loc.kernel_site.line - 1] \
        if Path(kernel_file).is_file() else "for "
    assert "for " in source_line


@pytest.mark.parametrize("path", params("ttgir"))
def test_layouts(path):
    module = _parse(path)
    kinds = {layout.kind for layout in module.layouts.values()}
    assert "ttg.blocked" in kinds
    arch = path.stem.split("-")[-1]
    if arch in ("sm_80", "sm_90"):
        mma = module.layouts["mma"]
        assert mma.kind == "ttg.nvidia_mma"
        assert dict(mma.params)["versionMajor"] == ("2" if arch == "sm_80" else "3")
    blocked = module.layouts["blocked"]
    assert dict(blocked.params)["order"] == "[1, 0]" and blocked.line < module.ops[0].line


def test_op_tree_and_counts():
    module = _parse(V36 / "naive-sm_90.ttgir")
    top = module.ops[0]
    assert top.name == "module" and top.depth == 0 and top.end_line > top.line
    func = module.functions[0]
    assert func.parent == top.index and func.depth == 1
    body = [op for op in module.ops if op.parent == func.index]
    assert body[-1].name == "tt.return"
    dialects = module.dialect_counts()
    assert dialects["ttg"] > 0 and dialects["tt"] > 0 and dialects["arith"] > 0 and dialects["scf"] >= 2
    loop = module.main_loop.op
    assert module.ops[loop.index + 1].parent == loop.index
    assert module.op_counts(within=loop)["scf.yield"] == 1


def test_location_kinds():
    text = """\
#loc = loc("/tmp/k.py":3:0)
#loc3 = loc("/site/standard.py":43:17)
#loc33 = loc("/tmp/k.py":20:22)
module {
  tt.func public @k(%a: i32 loc("a"(#loc))) {
    %0 = arith.addi %a, %a : i32 loc(#loc94)
    %1 = arith.addi %0, %a : i32 loc(#loc95)
    %2 = arith.addi %1, %a : i32 loc(fused[#loc1, #loc33])
    %3 = arith.addi %2, %a : i32 loc("/tmp/k.py":7:1)
    tt.return loc(#loc1)
  } loc(#loc)
} loc(#loc)
#loc1 = loc(unknown)
#loc94 = loc(callsite(#loc3 at #loc96))
#loc95 = loc("acc"(#loc94))
#loc96 = loc("b_ptrs"(#loc33))
#loc97 = loc(#loc97)
"""
    module = parse_mlir(text)
    ops = {op.results: op for op in module.ops if op.results}
    a = module.resolve(ops["%0"])
    assert (a.site.file, a.site.line, a.site.col) == ("/site/standard.py", 43, 17)
    assert (a.kernel_site.line, a.kernel_site.col) == (20, 22) and a.names == ("b_ptrs",)
    assert module.resolve(ops["%1"]).names == ("acc", "b_ptrs")
    assert module.resolve(ops["%2"]).site.line == 20
    assert module.resolve(ops["%3"]).site.line == 7
    assert module.resolve("#loc1") is None and module.resolve("#loc97") is None  # unknown, a cycle
    assert module.resolve("loc(#loc)").site.line == 3
    assert module.kernel_name == "k" and module.main_loop is None and module.loops == ()


@pytest.mark.parametrize("text", ["", "// nothing\n"])
def test_empty_text(text):
    module = parse_mlir(text)
    assert module.ops == () and module.kernel_name is None and module.main_loop is None


@pytest.mark.parametrize("text,line", [
    ("module {\n  tt.func @k() {\n    tt.return\n  }\n", 1),
    ("}\n", 1),
    ("module {\n  #blocked = 3\n}\n", 2),
])
def test_errors_carry_a_line(text, line):
    with pytest.raises(ParseError) as info:
        parse_mlir(text, stage="ttir")
    assert info.value.line == line and info.value.stage == "ttir"


def test_foreign_text_is_no_kernel_or_parse_error():
    text = Path(__file__).read_text()
    try:
        module = parse_mlir(text)
    except ParseError as error:
        assert error.line is not None
    else:
        assert module.kernel_name is None


def test_truncations_parse_or_raise_parse_error():
    lines = (V36 / "naive-sm_100.ttgir").read_text().split("\n")
    for cut in range(0, len(lines), 5):
        try:
            module = parse_mlir("\n".join(lines[:cut]))
        except ParseError as error:
            assert error.line is not None
            continue
        module.main_loop  # noqa: B018


def test_warp_specialize_regions_belong_to_the_op():
    text = """\
module {
  tt.func @k(%arg0: i32) {
    ttg.warp_specialize(%arg0)
    default {
      ttg.warp_yield loc(#loc1)
    }
    partition0(%arg1: i32) num_warps(4) {
      %0 = arith.addi %arg1, %arg1 : i32
      ttg.warp_return
    } : (i32) -> () loc(#loc1)
    tt.return
  }
}
"""
    module = parse_mlir(text)
    ws = next(op for op in module.ops if op.name == "ttg.warp_specialize")
    assert (ws.line, ws.end_line) == (3, 10) and ws.loc == "#loc1"
    assert [op.name for op in module.ops if op.parent == ws.index] == [
        "ttg.warp_yield", "arith.addi", "ttg.warp_return"]
    assert module.ops[-1].name == "tt.return" and module.ops[-1].parent == module.functions[0].index

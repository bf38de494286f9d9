"""The LLVM IR parser on Triton's kernel.llir."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden_option import DATA, check_golden, golden_name, params, summarize_llir

from ttinspect.errors import ParseError
from ttinspect.dialects.llir import parse_llir


@pytest.mark.parametrize("path", params("llir"))
def test_golden_summary(path, request):
    check_golden(request.config, golden_name(path), summarize_llir(parse_llir(path.read_text())))


@pytest.mark.parametrize("path", params("llir"))
def test_sm90_main_loop(path):
    module = parse_llir(path.read_text())
    kernel, main = module.kernel, module.main_loop
    assert kernel.name.endswith("_kernel") and main.rule == "tensor-core"
    ops = kernel.loop_instructions(main.loop)
    wgmma = [i for i in ops if i.is_tensor_core]
    assert len(wgmma) == main.tensor_ops == 2 and all("wgmma.mma_async" in i.text for i in wgmma)
    assert any("@llvm.nvvm.cp.async.wait.group(i32 2)" in i.text for i in ops)
    header = kernel.blocks[main.loop.header]
    assert header.label and header.label.isdigit()  # e.g. `106:` with `; preds = %.lr.ph, %106`
    assert header.index in kernel.blocks[main.loop.latches[0]].successors
    assert main.end_line == ops[-1].line and ops[-1].opcode == "br"


@pytest.mark.parametrize("path", params("llir"))
def test_debug_locations(path):
    module = parse_llir(path.read_text())
    mma = next(i for i in module.kernel.instructions if i.is_tensor_core)
    loc = module.location(mma.dbg)
    assert loc is not None and loc.file.endswith(".py") and loc.line > 0
    kernel_file = Path(loc.file).name
    assert all(module.location(i.dbg).file.endswith(".py") for i in module.kernel.instructions if i.dbg)
    assert kernel_file in path.read_text()


def test_inlined_location():
    text = FUNCTION.replace("%n = add i32 %i, 1", "%n = add i32 %i, 1, !dbg !8") + """
!1 = !DIFile(filename: "k.py", directory: "/tmp/t")
!4 = distinct !DISubprogram(name: "k", linkageName: "k", scope: !1, file: !1, line: 3, type: !5)
!8 = !DILocation(line: 43, column: 17, scope: !9, inlinedAt: !11)
!9 = distinct !DILexicalBlockFile(scope: !4, file: !10, discriminator: 0)
!10 = !DIFile(filename: "standard.py", directory: "/site/triton/language")
!11 = !DILocation(line: 6, column: 27, scope: !12)
!12 = distinct !DILexicalBlockFile(scope: !4, file: !1, discriminator: 0)
"""
    module = parse_llir(text)
    add = next(i for i in module.kernel.instructions if i.dbg == 8)
    loc = module.location(add.dbg)
    assert (loc.file, loc.line, loc.col) == ("/site/triton/language/standard.py", 43, 17)
    assert (loc.inlined_at.file, loc.inlined_at.line, loc.inlined_at.col) == ("/tmp/t/k.py", 6, 27)
    assert module.location(None) is None and module.location(99) is None


FUNCTION = """\
define void @k(i32 %0) {
  br label %loop

loop:                                              ; preds = %1, %body
  %i = phi i32 [ 0, %1 ], [ %n, %body ]
  %c = icmp slt i32 %i, %0
  br i1 %c, label %body, label %exit

body:                                              ; preds = %loop
  %n = add i32 %i, 1
  switch i32 %n, label %loop [
    i32 7, label %exit
  ]

exit:                                              ; preds = %loop, %body
  ret void
}
"""


def test_handwritten_function_with_switch():
    module = parse_llir(FUNCTION)
    kernel = module.kernel
    assert [b.label for b in kernel.blocks] == [None, "loop", "body", "exit"]
    assert kernel.blocks[2].successors == (1, 3)
    assert len(kernel.loops) == 1 and kernel.blocks[kernel.loops[0].header].label == "loop"
    assert module.main_loop.rule == "largest"
    assert kernel.blocks[1].end_line == 7  # the blank line before `body:` is nobody's


@pytest.mark.parametrize("text", ["", "; ModuleID = 'x'\n", "import os\nprint(1)\n"])
def test_empty_and_foreign_text(text):
    module = parse_llir(text)
    assert module.kernel is None and module.main_loop is None


@pytest.mark.parametrize("text,line", [
    ("define void @k() {\n  ret void\n", 1),
    ("define void @k() {\n  br label %nowhere\n}\n", 2),
])
def test_errors_carry_a_line(text, line):
    with pytest.raises(ParseError) as info:
        parse_llir(text)
    assert info.value.line == line


def test_truncations_parse_or_raise_parse_error():
    path = next(iter(DATA.glob("triton-*/*.llir")), None)
    if path is None:
        pytest.skip("no llir captured")
    lines = Path(path).read_text().split("\n")
    for cut in range(0, len(lines), 7):
        try:
            module = parse_llir("\n".join(lines[:cut]))
        except ParseError as error:
            assert error.line is not None
            continue
        if module.kernel is not None:
            module.main_loop  # noqa: B018

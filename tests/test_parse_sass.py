"""The SASS parser on nvdisasm -c -g and cuobjdump -sass output of real Triton kernels."""

from __future__ import annotations

import pytest
from golden_option import DATA, check_golden, golden_name, params, summarize_sass
from hypothesis import given, settings
from hypothesis import strategies as st

from ttinspect.errors import ParseError
from ttinspect.dialects.sass import parse_sass

V36 = DATA / "triton-3.6.0"


def _main(name: str, version: str = "triton-3.6.0"):
    path = DATA / version / name
    if not path.is_file():
        pytest.skip(f"{path} not captured")
    module = parse_sass(path.read_text())
    main = module.main_loop
    assert main is not None and main.rule == "tensor-core"
    return module, main, module.kernel.loop_instructions(main.loop)


@pytest.mark.parametrize("path", params("sass", "cuobjdump"))
def test_golden_summary(path, request):
    check_golden(request.config, golden_name(path), summarize_sass(parse_sass(path.read_text())))


@pytest.mark.parametrize("variant,depbar", [("naive", "0x2"), ("opt", "0x4")])
@pytest.mark.parametrize("version", ["triton-3.6.0", "triton-3.9.0"])
def test_sm80_hmma_and_depbar(version, variant, depbar):
    """cp.async.wait_group N is DEPBAR.LE SB0, N; 16 mma.sync become 16 HMMA.16816."""
    _, main, ops = _main(f"{variant}-sm_80.sass", version)
    assert sum(i.opcode == "HMMA" for i in ops) == 16 == main.tensor_ops
    assert all(i.mnemonic == "HMMA.16816.F32" for i in ops if i.opcode == "HMMA")
    assert {i.operands for i in ops if i.mnemonic == "DEPBAR.LE"} == {("SB0", depbar)}


@pytest.mark.parametrize("variant,hgmma", [("naive", 2), ("opt", 4)])
def test_sm90_hgmma(variant, hgmma):
    _, main, ops = _main(f"{variant}-sm_90.sass")
    assert sum(i.opcode == "HGMMA" for i in ops) == hgmma == main.tensor_ops


@pytest.mark.parametrize("version", ["triton-3.6.0", "triton-3.9.0"])
def test_sm100_out_of_line_wait_is_part_of_the_loop(version):
    """ptxas moves the mbarrier slow path after EXIT; it returns into the loop, so it is a loop block
    (with its own one-block spin loop nested inside) and the span has a gap."""
    module, main, ops = _main("naive-sm_100.sass", version)
    kernel = module.kernel
    assert any(i.opcode == "UTCHMMA" for i in ops)
    assert main.span.gaps, "the out-of-line wait lies after the epilogue"
    exit_line = next(i.line for i in kernel.instructions if i.opcode == "EXIT" and i.predicate is None)
    assert main.end_line > exit_line
    spins = [kernel.loops[c] for c in main.loop.children]
    assert spins and all(len(s.blocks) == 1 for s in spins)
    assert any(i.mnemonic.startswith("SYNCS.PHASECHK") for i in ops)
    assert [f.name for f in module.functions][0] == "matmul_naive_kernel"
    assert all(f.name.startswith("$__internal") for f in module.functions[1:])


def test_cuobjdump_fallback_agrees_with_nvdisasm():
    path = V36 / "naive-sm_90.cuobjdump"
    if not path.is_file():
        pytest.skip("not captured")
    cuobjdump = parse_sass(path.read_text())
    nvdisasm = parse_sass((V36 / "naive-sm_90.sass").read_text())
    assert cuobjdump.format == "cuobjdump" and nvdisasm.format == "nvdisasm"
    a, b = cuobjdump.main_loop, nvdisasm.main_loop
    assert (a.tensor_ops, a.instructions, a.loop.depth) == (b.tensor_ops, b.instructions, b.loop.depth)
    ka, kb = cuobjdump.kernel, nvdisasm.kernel
    assert [i.mnemonic for i in ka.instructions] == [i.mnemonic for i in kb.instructions]
    assert all(i.source is None for i in ka.instructions)


def test_instruction_fields_and_source_marks():
    module = parse_sass((V36 / "naive-sm_90.sass").read_text())
    kernel = module.kernel
    branch = next(i for i in kernel.instructions if i.opcode == "BRA" and i.predicate)
    assert branch.target.startswith(".L_x_") and branch.predicate.startswith("P")
    assert all(i.source is not None for i in kernel.instructions[1:20])
    hgmma = next(i for i in kernel.instructions if i.opcode == "HGMMA")
    assert hgmma.source[0].endswith(".py") and hgmma.modifiers[0] == "64x64x16"
    assert [i.address for i in kernel.instructions[:3]] == [0, 16, 32]


@pytest.mark.parametrize("text", ["", "hello world\n", "def f():\n    return 1\n"])
def test_empty_and_foreign_text(text):
    module = parse_sass(text)
    assert module.kernel is None and module.main_loop is None


def test_branch_to_unknown_label():
    text = "k:\n        /*0000*/                   BRA `(.L_x_9) ;\n"
    with pytest.raises(ParseError) as info:
        parse_sass("        .type           k,@function\n" + text)
    assert info.value.line == 3


SAMPLE = (V36 / "naive-sm_100.sass").read_text().split("\n") if (V36 / "naive-sm_100.sass").is_file() else []


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(["drop", "cut", "junk"]),
                          st.text(max_size=8)), max_size=4))
def test_mutated_sass_parses_or_raises_parse_error(edits):
    lines = list(SAMPLE)
    for at, kind, junk in edits:
        at = at % max(len(lines), 1)
        if kind == "drop" and lines:
            del lines[at]
        elif kind == "cut":
            lines = lines[:at]
        else:
            lines.insert(at, junk)
    try:
        module = parse_sass("\n".join(lines))
    except ParseError as error:
        assert error.line is not None
        return
    for function in module.functions:
        function.main_loop  # noqa: B018

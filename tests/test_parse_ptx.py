"""The PTX parser on real Triton output (tests/data/triton-*/), on hand-written corner cases, and on
mutated text (hypothesis): it returns a parse or raises ParseError with a line number, nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden_option import DATA, check_golden, golden_name, params, summarize_ptx, version_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ttinspect.errors import ParseError
from ttinspect.dialects.ptx import parse_ptx

V36 = DATA / "triton-3.6.0"


def _kernel(path: Path):
    module = parse_ptx(path.read_text())
    assert module.kernel is not None
    return module, module.kernel


def _need(path: Path) -> Path:
    if not path.is_file():
        pytest.skip(f"{path} not captured (tests/data/capture.py)")
    return path


def _main_loop_ops(path: Path):
    module, kernel = _kernel(_need(path))
    main = module.main_loop
    assert main is not None and main.rule == "tensor-core"
    return kernel, main, kernel.loop_instructions(main.loop)


@pytest.mark.parametrize("path", params("ptx"))
def test_golden_summary(path, request):
    check_golden(request.config, golden_name(path), summarize_ptx(parse_ptx(path.read_text())))


@pytest.mark.parametrize("path", params("ptx"))
def test_loops_agree_with_llvm_comments(path):
    """LLVM marks each loop header `// =>This Inner Loop Header: Depth=N`; the CFG finds the same ones."""
    _, kernel = _kernel(path)
    headers = sorted(kernel.blocks[loop.header].label for loop in kernel.loops)
    assert headers == sorted(kernel.llvm_loop_headers())


@pytest.mark.parametrize("variant,wait", [("naive", 2), ("opt", 4)])
@pytest.mark.parametrize("version", ["triton-3.6.0", "triton-3.9.0"])
def test_sm80_main_loop(version, variant, wait):
    """16 mma.sync m16n8k16 per iteration; cp.async.wait_group 2 (3 stages) / 4 (4 stages). Triton 3.9
    waits three times per iteration (the dot is split in two K halves), always with the same count."""
    _, main, ops = _main_loop_ops(DATA / version / f"{variant}-sm_80.ptx")
    mma = [i for i in ops if i.mnemonic.startswith("mma.sync.aligned.m16n8k16")]
    assert len(mma) == 16 == main.tensor_ops
    assert all(i.mnemonic == "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" for i in mma)
    waits = [int(i.operands[0]) for i in ops if i.mnemonic == "cp.async.wait_group"]
    assert waits and set(waits) == {wait}
    assert len(waits) == (1 if version == "triton-3.6.0" else 3)


def test_sm120_main_loop_uses_mma_sync():
    _, main, ops = _main_loop_ops(V36 / "naive-sm_120.ptx")
    assert sum(i.mnemonic.startswith("mma.sync") for i in ops) == 16


@pytest.mark.parametrize("variant,wgmma", [("naive", 2), ("opt", 4)])
@pytest.mark.parametrize("version", ["triton-3.6.0", "triton-3.9.0"])
def test_sm90_main_loop_uses_wgmma(version, variant, wgmma):
    _, main, ops = _main_loop_ops(DATA / version / f"{variant}-sm_90.ptx")
    assert sum(i.mnemonic.startswith("wgmma.mma_async") for i in ops) == wgmma == main.tensor_ops
    assert [i.operands[0] for i in ops if i.mnemonic == "wgmma.wait_group.sync.aligned"] == ["1"]


@pytest.mark.parametrize("variant", ["naive", "opt"])
@pytest.mark.parametrize("version", ["triton-3.6.0", "triton-3.9.0"])
def test_sm100_latch_before_header(version, variant):
    """On sm_100 LLVM lays the latch out before the header; dominators still find the right loop."""
    kernel, main, ops = _main_loop_ops(DATA / version / f"{variant}-sm_100.ptx")
    header = kernel.blocks[main.loop.header]
    assert (header.label,) == kernel.llvm_loop_headers()
    assert all(kernel.blocks[latch].start_line < header.start_line for latch in main.loop.latches)
    assert main.start_line == min(kernel.blocks[b].start_line for b in main.loop.blocks)
    assert sum(i.mnemonic.startswith("tcgen05.mma") for i in ops) == main.tensor_ops > 0
    # the mbarrier spin inside inline asm is part of a block, not a loop of its own
    assert len(kernel.loops) == 1
    spin = [i for i in ops if i.mnemonic.startswith("mbarrier.try_wait")]
    assert spin and all(i.inline_asm for i in spin)


def test_no_loop_and_row_loop():
    module, kernel = _kernel(_need(V36 / "add-sm_90.ptx"))
    assert kernel.loops == () and module.main_loop is None
    module, kernel = _kernel(_need(V36 / "softmax-sm_90.ptx"))
    assert len(kernel.loops) == 1 and module.main_loop.rule == "largest"


def test_instruction_fields():
    _, kernel = _kernel(_need(V36 / "naive-sm_80.ptx"))
    first = kernel.instructions[0]
    assert first.opcode == "ld" and first.modifiers[0] == "param" and first.loc is not None
    branch = next(i for i in kernel.instructions if i.predicate and i.opcode == "bra")
    assert branch.predicate.startswith("%p") and not branch.negated
    assert branch.operands[0].startswith("$L__BB")
    mma = next(i for i in kernel.instructions if i.opcode == "mma")
    assert len(mma.operands) == 4 and mma.operands[0].startswith("{")
    assert mma.inline_asm and mma.is_tensor_core
    module = parse_ptx(_need(V36 / "naive-sm_80.ptx").read_text())
    assert module.file_of(mma.loc).endswith(".py") and module.target == "sm_80"


INLINE_ASM = """\
.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(
\t.param .u64 k_param_0
)
{
\t.reg .pred \t%p<3>;
\t.loc\t1 5 0
$L__BB0_1:                              // =>This Inner Loop Header: Depth=1
\tadd.s32 \t%r1, %r1, 1;
\t// begin inline asm
\t{
\t.reg .pred complete;
\t.loc\t1 99 5
\twaitLoop:
\tmbarrier.try_wait.parity.shared::cta.b64 complete, [%r2], %r3;
\t@!complete bra.uni waitLoop;
\t}
\t// end inline asm
\tsetp.ne.s32 \t%p1, %r1, 8;
\t@%p1 bra \t$L__BB0_1;
\tret;
}
\t.file\t1 "/tmp/k.py"
"""


def test_inline_asm_spin_is_not_a_loop():
    module = parse_ptx(INLINE_ASM)
    kernel = module.kernel
    assert kernel.name == "k" and module.files == {1: "/tmp/k.py"}
    assert len(kernel.loops) == 1 and kernel.blocks[kernel.loops[0].header].label == "$L__BB0_1"
    wait = next(i for i in kernel.instructions if i.opcode == "mbarrier")
    assert wait.inline_asm and wait.loc.line == 5  # the .loc inside inline asm is ignored
    spin = next(i for i in kernel.instructions if i.operands == ("waitLoop",))
    assert spin.negated and spin.predicate == "complete" and spin.modifiers == ("uni",)
    assert [lab.name for lab in kernel.labels if lab.local] == ["waitLoop"]


@pytest.mark.parametrize("text", ["", "\n\n", "import os\n\ndef f(x):\n    return x + 1\n"])
def test_empty_and_foreign_text(text):
    module = parse_ptx(text)
    assert module.kernel is None and module.main_loop is None


@pytest.mark.parametrize("text,line", [
    (".visible .entry k()\n{\n\tret;\n", 2),  # never closed
    (".visible .entry k()\n{\n\tbra.uni \t$L__BB0_9;\n}\n", 3),  # undefined label
    ("}\n", 1),
])
def test_errors_carry_a_line(text, line):
    with pytest.raises(ParseError) as info:
        parse_ptx(text)
    assert info.value.line == line and info.value.stage == "ptx"


def _sample_lines() -> list[str]:
    path = V36 / "naive-sm_100.ptx"
    return path.read_text().split("\n")[:720] if path.is_file() else INLINE_ASM.split("\n")


SAMPLE = _sample_lines()
JUNK = st.sampled_from(["{", "}", "$L__BB0_4:", "\t@%p1 bra \t$L__BB0_4;", "\tbra.uni \t$L__BB0_99;",
                        "\tret;", "// begin inline asm", "waitLoop:", ".visible .entry x(", ".section .x",
                        "\t.loc\t1 2 3", ";", "@", "\tbra", ":", "\x00", "é"])


@st.composite
def mutated(draw):
    lines = list(SAMPLE)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["cut", "drop", "drop", "insert", "insert", "dup", "chars", "chars"]))
        at = draw(st.integers(0, max(len(lines) - 1, 0)))
        if kind == "cut":
            lines = lines[:at]
        elif kind == "drop" and lines:
            del lines[at]
        elif kind == "insert":
            lines.insert(at, draw(JUNK))
        elif kind == "dup" and lines:
            lines.insert(at, lines[draw(st.integers(0, len(lines) - 1))])
        elif kind == "chars" and lines:
            line = lines[at]
            pos = draw(st.integers(0, len(line)))
            lines[at] = line[:pos] + draw(st.text(max_size=3)) + line[pos + draw(st.integers(0, 3)):]
    return "\n".join(lines)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_ptx_parses_or_raises_parse_error(text):
    try:
        module = parse_ptx(text)
    except ParseError as error:
        assert isinstance(error.line, int) and error.line >= 1
        return
    for function in module.functions:
        function.main_loop  # noqa: B018 - the whole pipeline must run
        for index in range(len(function)):
            try:
                function.instruction(index)
            except ParseError as error:
                assert error.line == function._ins_line[index]


def test_versions_present():
    assert any(version_of(p) >= (3, 6) for p in DATA.glob("triton-*/*.ptx"))



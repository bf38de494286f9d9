"""The AMDGCN parser on captured assembly (Triton 3.9, gfx942 / gfx950 / gfx1100): golden summaries, and
the properties every parse must have."""

from __future__ import annotations

import pytest
from golden_option import check_golden, golden_name, params, summarize_amdgcn

from ttinspect.errors import ParseError
from ttinspect.dialects.amdgcn import parse_amdgcn

CAPTURED = params("amdgcn")


@pytest.mark.parametrize("path", CAPTURED)
def test_golden(path, request):
    check_golden(request.config, golden_name(path).replace(".amdgcn", "-amdgcn"),
                 summarize_amdgcn(parse_amdgcn(path.read_text())))


@pytest.mark.parametrize("path", CAPTURED)
def test_report_and_notes_agree(path):
    """LLVM's report and the code-object notes are the two witnesses of the register facts."""
    module = parse_amdgcn(path.read_text())
    total = module.report.get("TotalNumVgprs", module.report["NumVgprs"])  # RDNA (no AGPRs) writes no total
    assert total == module.note_int("vgpr_count")
    assert module.report["TotalNumSgprs"] == module.note_int("sgpr_count")
    assert module.report["ScratchSize"] == module.note_int("private_segment_fixed_size")


@pytest.mark.parametrize("path", CAPTURED)
def test_main_loop_holds_the_matrix_ops(path):
    kernel = parse_amdgcn(path.read_text()).kernel
    main = kernel.main_loop
    assert main is not None and main.rule == "tensor-core" and main.tensor_ops > 0
    lines = path.read_text().split("\n")
    assert "Loop" in "\n".join(lines[main.start_line - 1:main.end_line])  # LLVM's own loop comments lie inside


def test_branch_to_unknown_label_is_a_parse_error():
    text = "\t.type\tk,@function\nk:\n\ts_branch .LBB0_9\n\ts_endpgm\n.Lfunc_end0:\n"
    with pytest.raises(ParseError, match="unknown label"):
        parse_amdgcn(text)


def test_text_without_a_function_has_no_kernel():
    assert parse_amdgcn("; nothing\n").kernel is None

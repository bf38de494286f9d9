"""The CLI through click's CliRunner: each bad input gets one clear line and a non-zero exit code."""

from __future__ import annotations

import re

import json

import pytest
from cli_helpers import assert_error_first_line, run_cli


def test_help_lists_commands():
    result = run_cli("--help")
    assert result.exit_code == 0 and "dump" in result.output and "list" in result.output


def test_list_json_has_every_variant():
    rows = json.loads(run_cli("list", "--json").output)
    names = {row["name"] for row in rows}
    assert {"naive", "opt", "square", "tutorial", "add", "softmax", "tileon", "l2_g0", "l2_g8"} <= names
    opt = next(row for row in rows if row["name"] == "opt")
    assert "matmul_opt" in opt["aliases"] and opt["seed"] == "003"
    assert opt["config"]["num_stages"] == 4 and opt["config"]["GROUP_SIZE_M"] == 8


def test_list_table():
    result = run_cli("list")
    assert result.exit_code == 0 and "naive" in result.output and "matmul_opt" in result.output


def test_dump_ptx_has_header_with_target():
    result = run_cli("dump", "matmul_opt", "--stage", "ptx")
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert first.startswith("// ttinspect: opt") and "sm_89" in first and "triton=" in first
    assert ".target sm_89" in result.output
    assert "\x1b[" not in result.output  # not a terminal: plain text


def test_dump_set_and_inline_overrides_agree():
    a = run_cli("dump", "opt", "--stage", "ptx", "--set", "num_stages=3", "--arch", "sm_80", "--no-header")
    b = run_cli("dump", "opt:num_stages=3@sm_80", "--stage", "ptx", "--no-header")
    assert a.exit_code == 0 and a.output == b.output
    assert re.search(r"cp\.async\.wait_group\s+2;", a.output)


@pytest.mark.parametrize("stage", ["ttir", "ttgir", "llir", "ptx", "sass"])
def test_dump_every_stage(stage):
    result = run_cli("dump", "naive", "--stage", stage, "--arch", "sm_90")
    assert result.exit_code == 0, result.output
    assert "sm_90" in result.output.splitlines()[0]


def test_dump_all_writes_every_stage_and_refuses_to_overwrite(tmp_path):
    out = tmp_path / "opt-sm90"
    result = run_cli("dump", "opt", "--all", "--out", str(out), "--arch", "sm_90")
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(["kernel.ttir", "kernel.ttgir", "kernel.llir", "kernel.ptx", "kernel.cubin",
                            "kernel.sass", "metadata.json"])
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["shared"] > 0 and meta["num_stages"] == 4 and meta["target"]["arch"] == 90
    (out / "kernel.ptx").write_text("mine")
    again = run_cli("dump", "opt", "--all", "--out", str(out), "--arch", "sm_90")
    assert_error_first_line(again, 2, "already has", "--force")
    assert (out / "kernel.ptx").read_text() == "mine"  # nothing the user had is lost
    forced = run_cli("dump", "opt", "--all", "--out", str(out), "--arch", "sm_90", "--force")
    assert forced.exit_code == 0 and (out / "kernel.ptx").read_text() != "mine"


def test_unknown_variant_names_the_nearest():
    assert_error_first_line(run_cli("dump", "matmul_op"), 2, "unknown variant", "matmul_opt")


def test_unknown_stage_lists_valid_ones():
    assert_error_first_line(run_cli("dump", "opt", "--stage", "gcn"), 2, "unknown stage", "ttir", "sass", "amdgcn",
                            "asm")


def test_unknown_arch_lists_valid_ones():
    assert_error_first_line(run_cli("dump", "opt", "--arch", "sm_88"), 2, "unknown arch", "sm_80", "sm_120")


def test_unknown_set_key_lists_valid_ones():
    assert_error_first_line(run_cli("dump", "opt", "--set", "BLOCK_M=64"), 2, "unknown --set key",
                            "BLOCK_SIZE_M", "num_stages")


def test_malformed_set():
    assert_error_first_line(run_cli("dump", "opt", "--set", "num_stages"), 2, "KEY=VALUE")


def test_block_not_power_of_two_shows_triton_reason_and_source_line():
    result = run_cli("dump", "opt", "--set", "BLOCK_SIZE_N=48")
    assert_error_first_line(result, 3, "power of 2", "doc003.py:")
    assert "tl.arange" in result.output  # the kernel source line


def test_too_much_shared_memory_is_refused_like_a_launch():
    result = run_cli("dump", "opt", "--set", "BLOCK_SIZE_N=256", "--set", "BLOCK_SIZE_K=128",
                 "--set", "num_stages=6")
    assert_error_first_line(result, 3, "out of resource: shared memory", "Hardware limit: 101376", "sm_89")


def test_loop_prints_only_the_main_loop():
    full = run_cli("dump", "opt", "--stage", "ptx", "--arch", "sm_80").output
    loop = run_cli("dump", "opt", "--stage", "ptx", "--arch", "sm_80", "--loop").output
    assert loop.count("mma.sync") == 16 and len(loop) < len(full) / 2
    assert re.search(r"cp\.async\.wait_group\s+4;", loop)


def test_loop_on_a_kernel_without_one():
    assert_error_first_line(run_cli("dump", "add", "--stage", "ptx", "--loop"), 2, "no main loop")


def test_all_needs_out():
    assert_error_first_line(run_cli("dump", "opt", "--all"), 2, "--out")


def test_report_table_and_json():
    table = run_cli("report", "opt", "--arch", "sm_90")
    assert table.exit_code == 0, table.output
    for text in ("pipeline", "tensor cores", "wgmma", "sm_90"):
        assert text in table.output
    data = json.loads(run_cli("report", "opt", "--arch", "sm_90", "--json").output)
    assert data["target"] == "sm_90" and data["facts"]["pipeline_depth"]["value"] == 4
    assert data["facts"]["tensor_core_path"]["value"] == "wgmma"


def test_report_of_a_kernel_without_loop_says_not_applicable():
    data = json.loads(run_cli("report", "add", "--json").output)
    depth = data["facts"]["pipeline_depth"]
    assert depth["value"] is None and depth["unknown"].startswith("not applicable")


def test_diff_reproduces_doc003():
    """`ttinspect diff naive opt` on the default target: doc 003 §1.1 + §3.2."""
    data = json.loads(run_cli("diff", "naive", "opt", "--json").output)
    facts = data["facts"]
    assert (facts["shared_memory"]["a"], facts["shared_memory"]["b"]) == (16384, 30720)
    assert (facts["loop_wait_group"]["a"], facts["loop_wait_group"]["b"]) == ([2], [4])
    assert (facts["pipeline_depth"]["a"], facts["pipeline_depth"]["b"]) == (3, 4)
    assert facts["loop_tensor_core_ops"] == {"a": 16, "b": 16, "changed": False}
    explanations = {c["key"]: c["explanation"] for c in data["changes"]}
    assert "at most 4" in explanations["loop_wait_group"]


def test_diff_table_isolates_one_change():
    result = run_cli("diff", "opt", "opt:num_stages=3")
    assert result.exit_code == 0, result.output
    assert "What changed" in result.output and "pipeline depth 4 → 3" in result.output
    assert "GROUP_SIZE_M" not in result.output.split("What changed")[1]


def test_diff_stage_adds_renumbered_loop_diff():
    result = run_cli("diff", "naive", "opt", "--stage", "ptx")
    assert result.exit_code == 0, result.output
    assert re.search(r"^-\tcp\.async\.wait_group\s+2;", result.output, re.M)
    assert re.search(r"^\+\tcp\.async\.wait_group\s+4;", result.output, re.M)
    assert "main loop (ptx, renumbered)" in result.output


def test_diff_per_side_arch():
    data = json.loads(run_cli("diff", "opt@sm_80", "opt@sm_90", "--json").output)
    assert data["a"]["target"] == "sm_80" and data["b"]["target"] == "sm_90"
    assert data["facts"]["tensor_core_path"] == {"a": "mma.sync", "b": "wgmma", "changed": True}


def test_diff_bad_stage():
    assert_error_first_line(run_cli("diff", "naive", "opt", "--stage", "cubin"), 2, "unknown stage")


def test_native_arch_without_a_gpu():
    try:
        import torch

        if torch.cuda.is_available():
            pytest.skip("this machine has a GPU: --arch native resolves to it")
    except ImportError:
        pass
    assert_error_first_line(run_cli("dump", "opt", "--arch", "native"), 5, "needs a CUDA GPU")


def test_dump_source_interleaves_python_lines():
    result = run_cli("dump", "opt", "--stage", "ptx", "--arch", "sm_80", "--source", "--loop")
    assert result.exit_code == 0, result.output
    assert "//> doc003.py:" in result.output and "acc = tl.dot(a, b, acc)" in result.output
    from ttinspect.source import strip_interleaved

    plain = run_cli("dump", "opt", "--stage", "ptx", "--arch", "sm_80", "--loop").output
    assert strip_interleaved("ptx", result.output) == plain


def test_report_by_line_counts_the_dot_line():
    data = json.loads(run_cli("report", "opt", "--arch", "sm_80", "--by-line", "--json").output)
    dot = next(row for row in data["lines"] if row["text"] and "tl.dot" in row["text"])
    assert dict(dot["main_loop"]["families"])["mma"] == 16  # 3.9 adds operand-packing movs on the line
    table = run_cli("report", "opt", "--arch", "sm_80", "--by-line")
    assert table.exit_code == 0 and "mma×16" in table.output


@pytest.mark.parametrize("setting,fragment", [
    ("num_stages=abc", "must be an integer from 0 to 32"), ("num_stages=-1", "must be an integer from 0 to 32"),
    ("num_stages=999999999999", "from 0 to 32"), ("num_warps=3", "one of 1, 2, 4, 8, 16, 32"),
    ("dtype=int8", "valid dtypes are"), ("M=-5", "must be a positive integer"),
])
def test_bad_set_values_are_refused_before_triton(setting, fragment):
    assert_error_first_line(run_cli("dump", "opt", "--set", setting), 2, fragment)


def test_absurd_tile_is_refused_at_once():
    result = run_cli("dump", "opt", "--set", "BLOCK_SIZE_M=1024", "--set", "BLOCK_SIZE_N=1024")
    assert_error_first_line(result, 2, "accumulator values per thread")


def test_options_that_would_be_ignored_are_refused(tmp_path):
    assert_error_first_line(run_cli("dump", "opt", "--out", str(tmp_path)), 2, "--out is for --all")
    assert_error_first_line(run_cli("dump", "opt", "--all", "--out", str(tmp_path), "--stage", "ptx"), 2, "--all")
    assert_error_first_line(run_cli("report", "opt", "--stage", "sass"), 2, "--by-line")


def test_unusable_output_directory_is_one_line(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    result = run_cli("dump", "opt", "--all", "--out", str(afile / "sub"))  # refused before compiling: bad input
    assert result.exit_code == 2 and result.output.startswith("ttinspect: error:") and "Traceback" not in result.output
    assert "is a file, not a folder" in result.output


def test_diff_stage_without_a_loop_keeps_the_facts():
    result = run_cli("diff", "add", "opt", "--stage", "ptx")
    assert result.exit_code == 0, result.output
    assert "What changed" in result.output and "(no loop diff: add has no main loop" in result.output

"""AMD targets, compiled on this CPU-only machine: every fact equals what LLVM's resource report, the
code-object notes and Triton's metadata say; the pipeline-depth rule per target over num_stages 1–4;
the vendor-specific stages refused in one line; the warm path imports no triton."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner
from triton_features import TRITON, needs_amd

from ttinspect import inspect
from ttinspect.cli.main import cli
from ttinspect.engine.builds import build
from ttinspect.dialects.amdgcn import parse_amdgcn

pytestmark = needs_amd

VARIANTS = ("naive", "opt", "square", "tutorial")
CHECK_KERNELS = os.path.join(os.path.dirname(__file__), "data", "check_kernels", "kernels.py")


def mm(a="*fp16:16", b="*fp16:16") -> str:
    return f"{a}, {b}, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 64, 64, 32"
TARGETS = ("gfx942", "gfx950", "gfx1100")


@pytest.mark.parametrize("arch", TARGETS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_facts_equal_the_witnesses(variant, arch):
    report = inspect(variant, arch=arch)
    result = report.build
    module = parse_amdgcn(result.artifacts.text("amdgcn"))
    assert result.artifacts.has("hsaco") and result.metadata["warp_size"] == (32 if arch == "gfx1100" else 64)
    total = module.report.get("TotalNumVgprs", module.report["NumVgprs"])
    assert report["registers"] == total == module.note_int("vgpr_count")
    assert report["sgprs"] == module.report["TotalNumSgprs"] == module.note_int("sgpr_count")
    assert report["spills"] == module.note_int("vgpr_spill_count") + module.note_int("sgpr_spill_count")
    assert report["shared_memory"] == result.metadata["shared"]
    assert report["tensor_core_path"] == ("wmma" if arch == "gfx1100" else "mfma")
    loop = module.kernel.loop_instructions(module.kernel.main_loop.loop)
    assert report["loop_tensor_core_ops"] == sum(i.is_tensor_core for i in loop) > 0
    assert report["waves_per_simd"] <= module.report["Occupancy"]  # LLVM's ignores Triton's dynamic LDS


@pytest.mark.parametrize("arch", ("gfx90a", "gfx942", "gfx950", "gfx1100"))
@pytest.mark.parametrize("variant", ("naive", "opt"))
def test_pipeline_depth_rule(variant, arch):
    """Two witnesses, each equal to num_stages 1–4: the pipeliner's prologue (num_stages − 1 K steps loaded
    before the loop) and the LDS ring (buffers = num_stages − offset; gfx950's offset changed from 1 on
    Triton 3.6 to 0 on 3.9)."""
    offset = 0 if arch == "gfx950" and TRITON >= (3, 9) else 1
    for stages in (1, 2, 3, 4):
        report = inspect(variant, arch=arch, num_stages=stages)
        fact = report.fact("pipeline_depth")
        assert report.pipeline_depth == stages, fact
        assert "Two witnesses agree" in fact.explanation, fact.explanation
        if stages > 1:
            assert f"issues {stages - 1} K step(s)" in fact.explanation
            assert report["shared_buffers"][0].startswith(f"{stages - offset}x")
        else:
            assert "no K step loaded before the loop" in fact.explanation


@pytest.mark.parametrize("arch", ("gfx942", "gfx950"))
def test_a_loop_the_pipeliner_left_alone_is_depth_one(arch):
    """Loads issued and used in the same iteration, no LDS ring: depth 1 by both witnesses, although
    num_stages=2 was asked — a reduction loop without a dot; on gfx942 also a matmul whose operands load
    16 bits per lane (gfx950 pipelines that one: depth 2, both witnesses)."""
    narrow = inspect(f"{CHECK_KERNELS}:matmul", arch=arch, signature=mm("*fp16", "*fp16"))
    reduction = inspect(f"{CHECK_KERNELS}:row_sums", arch=arch, signature="*fp16:16, *fp32:16, i32:16, i32:16, 16, 128")
    assert narrow.pipeline_depth == (1 if arch == "gfx942" else 2)
    if arch == "gfx942":
        fact = narrow.fact("pipeline_depth")
        assert narrow["num_stages"] == 2 and fact.value == 1, fact
        assert "Two witnesses agree" in fact.explanation and "no LDS ring" in fact.explanation
    # nothing goes through LDS: the prologue is the one witness
    fact = reduction.fact("pipeline_depth")
    assert reduction["num_stages"] == 2 and fact.value == 1 and "One witness" in fact.explanation, fact


def test_a_reduction_loaded_ahead_into_registers(tmp_path):
    """tl.range(..., num_stages=3) on a loop without a dot: the pipeliner loads 2 steps ahead into
    registers (no LDS ring), so the depth is 3 by the prologue, one witness."""
    source = tmp_path / "reduce.py"
    source.write_text(REDUCTION_WITH_RANGE)
    for arch in ("gfx942", "gfx950"):
        fact = inspect(f"{source}:row_sums_range", arch=arch,
                       signature="*fp16:16, *fp32:16, i32:16, i32:16, 16, 128").fact("pipeline_depth")
        assert fact.value == 3 and "One witness" in fact.explanation and "stages nothing through LDS" in \
            fact.explanation, fact


REDUCTION_WITH_RANGE = """import triton
import triton.language as tl


@triton.jit
def row_sums_range(x_ptr, out_ptr, N, stride_row, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    cols = tl.arange(0, BLOCK_COLS)
    total = tl.zeros((BLOCK_ROWS,), dtype=tl.float32)
    for start in tl.range(0, N, BLOCK_COLS, num_stages=3):
        x = tl.load(x_ptr + rows[:, None] * stride_row + (start + cols)[None, :])
        total += tl.sum(x.to(tl.float32), axis=1)
    tl.store(out_ptr + rows, total)
"""


@pytest.mark.parametrize("arch", ("gfx942", "gfx1100"))
def test_prologue_loads_a_later_pass_rewrote(arch):
    """softmax (num_stages=4): on 3.9 convert-to-buffer-ops turns the prologue's loads into amdg.buffer_load
    without the pipeliner's mark; they are found by their source location: 3 rows ahead, depth 4, and the
    check does not call the loop unpipelined."""
    report = inspect("softmax", arch=arch)
    assert report.pipeline_depth == report["num_stages"] == 4, report.fact("pipeline_depth")
    assert "issues 3 K step(s)" in report.fact("pipeline_depth").explanation
    from ttinspect.check import check

    assert "TTI001" not in {f.id for f in check(report)}


def test_witnesses_that_disagree_give_unknown():
    from ttinspect.facts.amd_pipeline import pipeline_depth
    from ttinspect.targets.lookup import parse_arch

    ttgir = inspect("opt", arch="gfx942", num_stages=3).build.artifacts.text("ttgir")
    assert pipeline_depth(ttgir, parse_arch("gfx942"), (3, 9), has_loop=True, no_loop_reason="").value == 3
    # one buffer fewer in the ring than the prologue says: never a pick
    broken = ttgir.replace("!ttg.memdesc<2x", "!ttg.memdesc<3x")
    fact = pipeline_depth(broken, parse_arch("gfx942"), (3, 9), has_loop=True, no_loop_reason="")
    assert fact.value is None and "disagree" in fact.unknown and "depth 3" in fact.unknown and "depth 4" in fact.unknown
    # a release whose ring rule was not measured: the prologue alone, said so
    fact = pipeline_depth(ttgir, parse_arch("gfx942"), (3, 7), has_loop=True, no_loop_reason="")
    assert fact.value == 3 and "One witness" in fact.explanation


def test_report_and_diff_across_vendors():
    runner = CliRunner()
    out = runner.invoke(cli, ["report", "opt", "--arch", "gfx950", "--json"])
    assert out.exit_code == 0, out.output
    facts = json.loads(out.output)["facts"]
    assert facts["loop_matrix_ops"]["value"] and facts["pipeline_depth"]["value"] == 4
    out = runner.invoke(cli, ["diff", "opt@sm_90", "opt@gfx942", "--json"])
    data = json.loads(out.output)
    assert data["facts"]["tensor_core_path"] == {"a": "wgmma", "b": "mfma", "changed": True}
    assert "loop_wait_group" in data["one_side"]["a"] and "loop_waitcnt" in data["one_side"]["b"]


@pytest.mark.parametrize("args,words", [
    (["dump", "opt", "--arch", "gfx942", "--stage", "sass"], "NVIDIA-only stage"),
    (["dump", "opt", "--arch", "gfx942", "--stage", "ptx"], "NVIDIA-only stage"),
    (["dump", "opt", "--arch", "sm_90", "--stage", "amdgcn"], "AMD-only stage"),
    (["report", "opt", "--arch", "gfx1030"], "gfx1030"),
])
def test_wrong_stage_or_target_is_one_line(args, words):
    result = CliRunner().invoke(cli, args)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1 and words in lines[0], result.stderr


def test_dump_asm_loop_and_source():
    result = CliRunner().invoke(cli, ["dump", "opt", "--arch", "gfx942", "--stage", "asm", "--loop", "--source"])
    assert result.exit_code == 0
    assert "main loop: lines" in result.output and "v_mfma_f32_32x32x8_f16" in result.output
    assert ";> doc003.py:84: acc = tl.dot(a, b, acc)" in result.output


def test_warm_amd_report_imports_no_triton(tmp_path):
    build("opt", arch="gfx942")
    code = ("import sys; from ttinspect import inspect; inspect('opt', arch='gfx942'); "
            "print('triton' in sys.modules, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy())
    assert out.stdout.split() == ["False", "False"], out.stderr


@needs_amd
@pytest.mark.parametrize("option, arch, vendor", [("waves_per_eu=2", "sm_90", "AMD (HIP)"),
                                                  ("matrix_instr_nonkdim=16", "sm_80", "AMD (HIP)"),
                                                  ("maxnreg=64", "gfx942", "NVIDIA (CUDA)")])
def test_the_other_vendors_compile_option_is_refused_as_a_launch_refuses_it(option, arch, vendor):
    """A launch raises KeyError ("Keyword argument ... was specified but unrecognised") for an option its
    backend does not take; a file sending its AMD configs to an NVIDIA GPU must not compile quietly."""
    from cli_helpers import assert_one_line_error, run_cli

    mm = os.path.join(os.path.dirname(__file__), "data", "user_kernels", "my_mm.py")
    result = run_cli("report", f"{mm}:add_kernel", "--signature", "*fp32:16, *fp32:16, *fp32:16, i32:16",
                     "--set", "BLOCK=1024", "--set", option, "--arch", arch)
    assert_one_line_error(result, 2, f"a compile option of Triton's {vendor} backend", "unrecognised",
                          f"drop it for {arch}")


TWO_PIPELINED_LOOPS = """import triton
import triton.language as tl


@triton.jit
def two_loops(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr, BK: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    ks = tl.arange(0, BK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K // 2, BK):  # the first half (a causal attention's off-diagonal blocks)
        a = tl.load(a_ptr + rows[:, None] * K + (k + ks)[None, :])
        b = tl.load(b_ptr + (k + ks)[:, None] * BLOCK + rows[None, :])
        acc += tl.dot(a, b)
    for k in range(K // 2, K, BK):  # the second half (its diagonal blocks): pipelined again
        a = tl.load(a_ptr + rows[:, None] * K + (k + ks)[None, :])
        b = tl.load(b_ptr + (k + ks)[:, None] * BLOCK + rows[None, :])
        v = tl.load(b_ptr + K * BLOCK + (k + ks)[:, None] * BLOCK + rows[None, :])
        acc += tl.dot(a, b)
        acc += tl.dot(a, v)  # two dots: the main loop
    tl.store(c_ptr + rows[:, None] * BLOCK + rows[None, :], acc.to(tl.float16))
"""


@needs_amd
@pytest.mark.parametrize("stages", [2, 3])
def test_the_second_of_two_pipelined_loops_counts_only_its_own_prologue(tmp_path, stages):
    """Two loops pipelined one after the other (flag-gems' causal attention): the first loop's prologue
    loads are not the second's; both witnesses agree on num_stages."""
    source = tmp_path / "two.py"
    source.write_text(TWO_PIPELINED_LOOPS)
    fact = inspect(f"{source}:two_loops", arch="gfx942", signature="*fp16:16, *fp16:16, *fp16:16, i32:16, 64, 32",
                   num_stages=stages).fact("pipeline_depth")
    assert fact.value == stages and "Two witnesses agree" in fact.explanation, fact

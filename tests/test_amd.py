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
from ttinspect.cli import cli
from ttinspect.engine import build
from ttinspect.parse.amdgcn import parse_amdgcn

pytestmark = needs_amd

VARIANTS = ("naive", "opt", "square", "tutorial")
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


@pytest.mark.parametrize("arch", ("gfx942", "gfx950", "gfx1100"))
@pytest.mark.parametrize("variant", ("naive", "opt"))
def test_pipeline_depth_rule(variant, arch):
    """The measured rule: LDS buffers = num_stages - offset (num_stages 1: no multi-buffered alloc);
    gfx950's offset changed from 1 (Triton 3.6) to 0 (3.9)."""
    offset = 0 if arch == "gfx950" and TRITON >= (3, 9) else 1
    for stages in (1, 2, 3, 4):
        report = inspect(variant, arch=arch, num_stages=stages)
        assert report.pipeline_depth == stages, report.fact("pipeline_depth")
        if stages > 1:
            assert report["shared_buffers"][0].startswith(f"{stages - offset}x")


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

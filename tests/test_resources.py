"""Registers, spills and occupancy, offline. The H100 figures (Triton 3.6) pin the offline numbers."""

from __future__ import annotations

import pytest
from triton_features import TRITON

from ttinspect import inspect
from ttinspect.targets.releases import triton_version
from ttinspect.backends.nvidia_resources import occupancy
from ttinspect.facts.resources import parse_ptxas_log, parse_resource_usage
from ttinspect.targets.nvidia import TARGETS

USAGE = """
Resource usage:
 Common:
  GLOBAL:0
 Function $__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath:
  REG:12 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:0 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function matmul_tileon_kernel:
  REG:255 STACK:1128 SHARED:1024 LOCAL:16 CONSTANT[0]:592 TEXTURE:0 SURFACE:0 SAMPLER:0
"""

LOG = """ptxas-blackwell info    : Compiling entry function 'k' for 'sm_90a'
ptxas-blackwell info    : Function properties for k
    1128 bytes stack frame, 2472 bytes spill stores, 1960 bytes spill loads
ptxas-blackwell info    : Used 255 registers, used 1 barriers
"""

# Measured on an NVIDIA H100 with Triton 3.6.0 (docs/resources.md, scripts/device_resources.sh):
# n_regs and n_spills reported at launch for every shipped variant at its default config.
H100_TRITON36 = {"naive": (59, 0), "opt": (64, 0), "square": (46, 0), "tutorial": (60, 0), "add": (26, 0),
                 "softmax": (31, 0), "tileon": (255, 282), "l2_g0": (168, 0), "l2_g8": (168, 0)}


def test_parse_resource_usage_picks_the_kernel():
    usage = parse_resource_usage(USAGE, "matmul_tileon_kernel")
    assert (usage.registers, usage.stack, usage.local) == (255, 1128, 16)
    assert usage.spills == (1128 + 16) // 4  # the driver's LOCAL_SIZE_BYTES / 4, as Triton reports
    assert parse_resource_usage(USAGE, "missing") is None
    assert parse_resource_usage("garbage") is None


def test_parse_ptxas_log():
    report = parse_ptxas_log(LOG)
    assert (report.registers, report.stack_frame, report.spill_stores, report.spill_loads) == (255, 1128, 2472, 1960)
    assert parse_ptxas_log("") is None


@pytest.mark.parametrize("regs,shared,warps,arch,blocks,limit", [
    (59, 24576, 4, "sm_90", 8, ("registers",)),  # 2048 regs/warp -> 8 warps per quarter-SM
    (64, 40960, 4, "sm_90", 5, ("shared memory",)),  # (40960 + 1024) per CTA in 228 KB
    (32, 0, 4, "sm_89", 12, ("warps",)),  # 48 warps / 4
    (16, 0, 1, "sm_80", 32, ("blocks",)),
    (255, 0, 8, "sm_90", 1, ("registers",)),
])
def test_occupancy(regs, shared, warps, arch, blocks, limit):
    result = occupancy(TARGETS[arch], registers=regs, shared=shared, num_warps=warps)
    assert result.blocks_per_sm == blocks and result.limited_by == limit
    assert result.warps_per_sm == blocks * warps


@pytest.mark.parametrize("variant", sorted(H100_TRITON36))
def test_offline_registers_match_the_h100(variant):
    if triton_version() != "3.6.0":
        pytest.skip("register counts depend on the ptxas of the Triton version; measured with 3.6.0")
    report = inspect(variant, arch="sm_90")
    assert (report.registers, report.spills) == H100_TRITON36[variant]


@pytest.mark.slow  # compiles
def test_resource_facts_in_report():
    report = inspect("naive", arch="sm_90")
    assert report.blocks_per_sm == 8 and report["occupancy_limit"] == "registers"
    spilling = inspect("tileon", arch="sm_90")
    assert spilling.spills > 0
    if TRITON < (3, 5):  # the ptxas -v report is deleted unread: its facts say so, never a guess
        for fact in (report.fact("spill_store_bytes"), spilling.fact("spill_load_bytes")):
            assert fact.value is None and "deletes the ptxas -v report unread" in fact.unknown
        return
    assert report["spill_store_bytes"] == 0 and report["spill_load_bytes"] == 0
    assert spilling["spill_store_bytes"] > 0 and spilling["spill_load_bytes"] > 0


def test_missing_cuobjdump_degrades_to_unknown(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_CUOBJDUMP_PATH", str(tmp_path / "no-such-tool"))
    monkeypatch.setattr("ttinspect.engine.tools.triton_bin_dir", lambda: tmp_path)
    report = inspect("add", arch="sm_80", BLOCK_SIZE=512)
    fact = report.fact("registers")
    assert fact.value is None and "cuobjdump not found" in fact.unknown
    assert report.fact("occupancy").value is None

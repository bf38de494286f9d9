"""The pairs measured on the GPU (docs/check.md, "Evidence on the GPU"; benchmarks/advice_kernels.py):
the finding fires at warning level on the situation that was slower and is silent on the fix that was
faster. The kernels are ordinary user files, written apart from the rules' own test kernels."""

from __future__ import annotations

from pathlib import Path

import pytest

from ttinspect import inspect

ADVICE = Path(__file__).resolve().parents[1] / "benchmarks" / "advice_kernels.py"

# (rule id, the slower example, the faster example): measured on an H200 — narrow loads 1.09x,
# occupancy 1.23x, the loop pipelined 2.25x (docs/data/check_advice/advice.md).
PAIRS = [("TTI005", "narrow_before", "narrow_after"),
         ("TTI004", "occupancy_before", "occupancy_after"),
         ("TTI001", "pipeline_before", "pipeline_after")]


@pytest.mark.parametrize("rule, before, after", PAIRS)
def test_finding_fires_before_the_fix_and_not_after(rule, before, after):
    fired = [f for f in inspect(f"{ADVICE}:{before}").findings if f.id == rule]
    assert fired and fired[0].severity == "warning", [f.id for f in inspect(f"{ADVICE}:{before}").findings]
    assert not [f for f in inspect(f"{ADVICE}:{after}").findings if f.id == rule]


@pytest.mark.parametrize("before, fixes", [("tileon", ("tileon:num_warps=8", "tileon:BLOCK_N=128"))])
def test_spill_fixes_measured_on_the_gpu_remove_the_finding(before, fixes):
    assert "TTI003" in {f.id for f in inspect(before, arch="sm_90").findings}
    for fix in fixes:  # 5.9x and 5.6x faster on the H200
        assert "TTI003" not in {f.id for f in inspect(fix, arch="sm_90").findings}


def test_mma_sync_fix_measured_on_the_gpu_removes_the_finding():
    assert "TTI002" in {f.id for f in inspect("naive:num_warps=2", arch="sm_90").findings}
    assert "TTI002" not in {f.id for f in inspect("naive", arch="sm_90").findings}  # 1.11x faster

"""On a GPU: bench's figure agrees within ±3 % with an independent do_bench of the same launch, and
profile reads counters when Nsight Compute is there."""

from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("variant", ["naive", "opt"])
def test_bench_agrees_with_an_independent_do_bench(variant):
    import torch
    import triton.testing

    from ttinspect.gpu.bench import bench
    from ttinspect.kernel.overrides import resolve

    size = 4096
    measured = bench([variant], [size]).results[0].variants[0]
    ref = resolve(variant, {"M": size, "N": size, "K": size})
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    out = torch.empty(size, size, device="cuda", dtype=torch.float16)
    launcher = ref.variant.load_launcher()
    config = dict(ref.config)
    ms = triton.testing.do_bench(lambda: launcher(a, b, out=out, **config), return_mode="median")
    assert abs(measured.ms - ms) / ms <= 0.03, (measured.ms, ms)


@pytest.mark.skipif(shutil.which("ncu") is None, reason="Nsight Compute (ncu) is not installed")
def test_profile_reads_counters():
    from ttinspect.gpu.profile import profile

    rows = profile(["opt"], 2048, cublas=True)
    assert len(rows) == 2
    for row in rows:
        assert row.metrics["duration_us"] and row.metrics["duration_us"] > 0
        assert row.metrics["dram_read_bytes"] and row.metrics["dram_read_bytes"] > 0

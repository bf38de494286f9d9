"""On a GPU: `ttinspect calibrate` measures this device and writes a profile that `--device-profile` reads
back; its figures lie between a tenth of the datasheet's and 1.5× it (a measurement, not a copy)."""

from __future__ import annotations

import json

import pytest

from cli_helpers import run_cli_ok

pytestmark = pytest.mark.gpu

COPY = """import triton
import triton.language as tl


@triton.jit
def copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)
"""


def test_calibrate_writes_a_profile_predict_reads(tmp_path):
    from ttinspect.perf.devices import find_device
    from ttinspect.perf.profile import read_profile

    out = tmp_path / "gpu.json"
    said = run_cli_ok("calibrate", "-o", str(out))
    assert f"wrote {out}" in said
    profile = read_profile(out)
    row = find_device(profile.device)
    for dtype, reached in profile.tflops.items():
        assert 0.1 * row.tflops[dtype] <= reached <= 1.5 * row.tflops[dtype], (dtype, reached)
    assert 0.1 * row.hbm_gbps <= profile.hbm_gbps <= 1.5 * row.hbm_gbps
    assert profile.launch_us is not None and profile.l2_gbps is not None
    kernel = tmp_path / "copy_kernel.py"  # a file of its own: the test needs no installed package of kernels
    kernel.write_text(COPY)
    predicted = json.loads(run_cli_ok("predict", f"{kernel}:copy", "--arch", profile.arch, "--device-profile",
                                      str(out), "--arg", "src=*fp32", "--arg", "dst=*fp32", "--arg", "n=16777216",
                                      "--set", "BLOCK=1024", "--launch-grid", "cdiv(n, BLOCK)", "--json"))
    assert predicted["details"]["figures"].startswith("measured profile gpu.json")
    assert predicted["time_ms"] > 0 and predicted["breakdown"]["launch"] == pytest.approx(profile.launch_us * 1e-3)

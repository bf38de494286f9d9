"""On a GPU: a program's launch captured, then replayed and timed by `bench` beside a change of it, the change
computing the same tensors; `profile` reads its counters when Nsight Compute is there."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap

import pytest
from capture_programs import ROW_SCALE_KERNEL

pytestmark = pytest.mark.gpu

PROGRAM = ROW_SCALE_KERNEL + textwrap.dedent("""\
    x = torch.randn(4096, 4096, device="cuda")
    y = torch.empty_like(x)
    row_scale[(4096,)](x, y, 4096, x.stride(0), 3.0, BLOCK=256)
    torch.cuda.synchronize()
""")


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gpu_replay")
    (folder / "prog.py").write_text(PROGRAM)
    subprocess.run([sys.executable, "-m", "ttinspect", "capture", "-o", "run.ttcap", "--", sys.executable,
                    "prog.py"], cwd=folder, check=True, timeout=300)
    return folder / "run.ttcap"


def test_bench_replays_a_captured_kernel_and_a_change_of_it(capture):
    done = subprocess.run([sys.executable, "-m", "ttinspect", "bench", f"{capture}:row_scale",
                           f"{capture}:row_scale:BLOCK=1024,num_warps=8", "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    first, changed = data["replays"]
    assert first["grid"] == [4096, 1, 1] and first["ms"] > 0 and first["max_abs_diff"] is None
    assert changed["ms"] > 0 and changed["max_abs_diff"] == 0.0


@pytest.mark.skipif(shutil.which("ncu") is None, reason="Nsight Compute (ncu) is not installed")
def test_profile_reads_a_captured_kernels_counters(capture):
    from ttinspect.gpu.profile import profile

    rows = profile([f"{capture}:row_scale"], cublas=False)
    assert len(rows) == 1 and rows[0].metrics["duration_us"] and rows[0].metrics["duration_us"] > 0

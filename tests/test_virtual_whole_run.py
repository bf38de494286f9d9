"""The whole-run mode (`capture --as`): a process holds the target's virtual device from start to end and no
kernel runs, so host code's stream, event and synchronize questions are answered; measured values stay
refused naming the program's line (docs/virtual-device.md, "A whole run")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HOST = Path(__file__).parent / "data" / "virtual_imports" / "host_sequence.py"


def run_host(tmp_path: Path, *args: str) -> dict:
    pytest.importorskip("torch")
    env = {**os.environ, "HOME": str(tmp_path), "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, str(HOST), *args], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(HOST.read_text().splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def as_h100(tmp_path_factory) -> dict:
    return run_host(tmp_path_factory.mktemp("whole_run"), "sm_90")


def test_a_typical_host_sequence_runs_as_on_an_h100(as_h100):
    seen = as_h100
    assert seen["runs_nothing"] and not seen["initialized_at_start"] and seen["initialized"]
    assert seen["allocated_at_start"] == 0
    assert seen["raw_stream_inside"] and seen["raw_stream_after"] == 0 and seen["current_is_default"]
    assert seen["y"] == ["cuda:0", [1024, 256], "torch.float16", [256, 1]]
    assert seen["event_done"] and seen["capability"] == [9, 0] and seen["sms"] == 132


@pytest.mark.parametrize("asked, said", [
    ("elapsed_time", "torch.cuda.Event.elapsed_time(), which the virtual device (NVIDIA H100 80GB HBM3, for sm_90) "
                     "cannot answer (a measured time"),
    ("memory_allocated", "torch.cuda.memory_allocated(), which the virtual device (NVIDIA H100 80GB HBM3, for "
                         "sm_90) cannot answer once the code has allocated on it"),
    ("item", "of a tensor on the virtual device"),
])
def test_what_only_a_run_measures_is_refused_with_the_programs_line(as_h100, asked, said):
    lines = range(line_of("for name, ask in"), line_of("seen[name] = ask()") + 1)  # the lambda's, or the call's
    assert as_h100[asked].startswith("VirtualDeviceError: ") and said in as_h100[asked], as_h100[asked]
    assert any(f"host_sequence.py:{n} asks" in as_h100[asked] for n in lines), as_h100[asked]


def test_free_memory_is_a_fresh_gpu_s(as_h100):
    # a skip-guard or a size picked from free memory takes the branch a fresh H100 gives (axolotl's and
    # fastvideo's tests ask it at collection): total less the CUDA context, said once on stderr
    free, total = as_h100["mem_get_info"]
    assert total == 85017493504 and free == total - 512 * 2**20


def test_device_props_reach_the_whole_run(tmp_path):
    assert run_host(tmp_path, "sm_90", "num_sms=114\nname=NVIDIA H100 PCIe")["sms"] == 114


@pytest.mark.parametrize("text, items", [
    (None, []), ("num_sms=114", ["num_sms=114"]), ("num_sms=114,smem=100KB", ["num_sms=114", "smem=100KB"]),
    ("name=A, B\nl2=40MB\n", ["name=A, B", "l2=40MB"]), (["num_sms=1", "l2=1MB"], ["num_sms=1", "l2=1MB"]),
])
def test_device_props_as_the_capture_passes_them(text, items):
    from ttinspect.virtual.process import device_props_items

    assert device_props_items(text) == items

"""On an H100: each sm_90 Gluon kernel of tests/data/gluon/ launched with Gluon's own host descriptors computes
A @ B (or the copy), and its launch's PTX is ttinspect's offline compile of the same specialization, its
registers and spills too (scripts/device_gluon.py runs the same and records the times)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "device_gluon.py"


def _device_gluon():
    spec = importlib.util.spec_from_file_location("device_gluon", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_sm90_gluon_kernel_launches_as_ttinspect_compiled_it():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("needs an sm_90 GPU")
    device = _device_gluon()
    from gluon_cases import cases

    for case in [c for c in cases() if c.arch == "sm_90"]:
        row = device.run(case)
        assert row["ptx_equal"] and row["n_regs"] == row["offline_registers"], row
        assert row["max_abs_error"] < 0.25, row  # fp16 sums of 2048 products of N(0, 1) values

"""data_ptr() of a tensor on the virtual device: an address of the device's own (virtual/addresses.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cli_helpers import run_process

from ttinspect.capture import read
from ttinspect.virtual import addresses

DATA = Path(__file__).parent / "data" / "capture_as"


@pytest.mark.parametrize("dtype, offset, expected", [("float16", 8, 16), ("float32", 3, 12), ("int8", 0, 0)])
def test_a_views_address_is_its_storages_plus_its_offset(dtype, offset, expected):
    torch = pytest.importorskip("torch")
    base = torch.empty(1000, device="meta", dtype=getattr(torch, dtype))
    start = addresses.data_ptr(base)
    assert start % addresses.ALIGNMENT == 0 and start >= addresses.BASE
    assert addresses.data_ptr(base[offset:]) - start == expected
    other = torch.empty(10, device="meta", dtype=getattr(torch, dtype))
    assert addresses.data_ptr(other) != start and addresses.data_ptr(other) % addresses.ALIGNMENT == 0


@pytest.mark.slow  # a capture: a process running the program
def test_a_pointer_table_is_captured_as_the_target(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "prog.py").write_text((DATA / "pointer_table.py").read_text())
    done = run_process("capture", "--as", "sm_90", "-o", "run.ttcap", "--", sys.executable, "prog.py", cwd=tmp_path)
    assert done.returncode == 0 and "addresses ok" in done.stdout, done.stderr
    assert [c.name for c in read(tmp_path / "run.ttcap").compiles] == ["gather"]

"""`check` on a capture reads the values its launches recorded (TTI001's trip count), and TTI005 says a load
offset by a constant that is not a multiple of the vector width is misaligned by construction (issue 39,
round 6). The programs are ours, in tests/data/check_round6/; captures are made here with `capture --as`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli, run_process

DATA = Path(__file__).parent / "data" / "check_round6"
SHIFTED = f"{DATA / 'shifted_loads.py'}:shifted_copy"


def captured_rows(tmp_path: Path, cols: str) -> Path:
    """rows_program.py captured as sm_90, row_sum launched once per size in `cols` (BLOCK 4096)."""
    (tmp_path / "prog.py").write_text((DATA / "rows_program.py").read_text())
    run_process("capture", "--as", "sm_90", "-o", "run.ttcap", "--", sys.executable, "prog.py",
                cwd=tmp_path, env={"ROW_COLS": cols}, check=True)
    return tmp_path / "run.ttcap"


def tti001(findings: list[dict]) -> list[dict]:
    return [f for f in findings if f["id"] == "TTI001"]


def kernel_findings(ref: str, *options: str) -> list[dict]:
    result = run_cli("check", ref, "--json", *options)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["findings"]


def capture_findings(capture: Path) -> list[dict]:
    result = run_cli("check", capture, "--json")
    assert result.exit_code == 0, result.output
    return [f for row in json.loads(result.output)["compiles"] for f in row["findings"]]


@pytest.mark.parametrize("cols", ["4096", "4096,4096"], ids=["one-launch", "launches-agree"])
@pytest.mark.parametrize("whole", [False, True], ids=["kernel-ref", "whole-capture"])
def test_a_recorded_value_reaches_the_trip_count(tmp_path, cols, whole):
    """N=4096 with BLOCK=4096: the loop runs once for every recorded launch, so there is nothing to pipeline."""
    capture = captured_rows(tmp_path, cols)
    found = capture_findings(capture) if whole else kernel_findings(f"{capture}:row_sum")
    assert tti001(found) == [], found


def test_values_the_launches_disagree_on_stay_unknown_and_are_named(tmp_path):
    """N=4096 and N=8192 launched the same compile: no one value is the launch's; the finding stays and says so."""
    capture = captured_rows(tmp_path, "4096,8192")
    found = tti001(kernel_findings(f"{capture}:row_sum"))
    assert len(found) == 1
    assert "N took 2 values in the captured launches (4096, 8192)" in found[0]["why"]


def test_a_file_reference_without_values_keeps_the_finding():
    """The same kernel with no value for N (not captured, no --arg): the trip count is unknown, as before."""
    found = tti001(kernel_findings(f"{DATA / 'rows_program.py'}:row_sum", "--arch", "sm_90", "--signature",
                                   "*fp32:16,*fp16:16,i32:16,i32:16,4096", "--set", "num_warps=8"))
    assert len(found) == 1 and "N is a runtime argument without a value" in found[0]["why"]


def narrow_load(shift: int, e_type: str) -> list[dict]:
    found = kernel_findings(SHIFTED, "--arch", "sm_90", "--signature", f"*i32:16,*i32:16,{e_type},1024,{shift}")
    return [f for f in found if f["id"] == "TTI005" and "loads on line 13" in f["title"]]


@pytest.mark.parametrize("e_type", ["i32", "i32:16"])
@pytest.mark.parametrize("shift", [-1, 2, 3])
def test_a_constant_offset_off_the_vector_is_said_and_blames_no_argument(shift, e_type):
    """1024 i32 over 4 warps: 4-element vectors. x[i + SHIFT] with SHIFT not a multiple of 4 stays narrow
    whatever E's hint: INFO, with the offset, and no `E i32:16` advice."""
    found = narrow_load(shift, e_type)
    assert len(found) == 1, found
    finding = found[0]
    assert finding["severity"] == "info"
    assert f"offset by {shift} element(s)" in finding["title"] and "4-element vector" in finding["title"]
    assert "Responsible" not in finding["why"] and "i32:16" not in finding["fix"]


def test_an_aligned_constant_offset_still_gets_its_hint_advice():
    """SHIFT=4 is a whole vector: the load is narrow only because E (the mask's bound) lacks its hint."""
    found = narrow_load(4, "i32")
    assert len(found) == 1 and found[0]["severity"] == "warning"
    assert "Responsible: E" in found[0]["why"] and "i32:16" in found[0]["fix"]
    assert narrow_load(4, "i32:16") == []  # and the hint does widen it

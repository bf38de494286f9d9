"""`inspect(kernel, args={...})`: the values given count in `report.findings` as `ttinspect check --arg /
--signature` counts them (TTI001's trip count, TTI005's sizes) — one path: check/'s `launch_values`."""

from __future__ import annotations

from pathlib import Path

import pytest

from ttinspect import Pointer, inspect, report_from_build
from ttinspect.check import check_reference
from ttinspect.refs.resolver import RefOptions
from ttinspect.errors import UsageError

KERNELS = Path(__file__).parent / "data" / "false_alarms" / "kernels.py"
RMS = f"{KERNELS}:rms_rows"
RMS_CONFIG = {"BLOCK_SIZE": 4096, "num_stages": 3}


def rms_args(n_cols) -> dict:
    return {"x_ptr": Pointer("fp16"), "w_ptr": "*fp16", "out_ptr": "*fp16", "n_cols": n_cols, "stride": n_cols,
            "eps": 1e-6}


def ids(report, rule: str) -> list:
    return [f for f in report.findings if f.id == rule]


@pytest.mark.parametrize("n_cols, fires", [
    ("i32:16", True),  # a type: the trip count is unknown, the loop may run many times
    (4096, False),  # one trip: n_cols = BLOCK_SIZE
    ("4096", False),  # the same value as --arg's text
    (8192, True),  # two trips: still a finding, with its count
])
def test_a_value_given_by_name_counts_for_the_trip_count(n_cols, fires):
    found = ids(inspect(RMS, "sm_90", args=rms_args(n_cols), config=RMS_CONFIG), "TTI001")
    assert bool(found) is fires
    if n_cols == 8192:
        assert "It runs 2 times for the values given" in found[0].why


def test_a_value_in_the_signature_counts_too():
    report = inspect(RMS, "sm_90", signature="*fp16:16, *fp16:16, *fp16:16, 4096, 4096, 1e-6", config=RMS_CONFIG)
    assert not ids(report, "TTI001")


def test_a_stride_given_by_value_conditions_the_advice():
    report = inspect(f"{KERNELS}:strided_rows", "sm_90", signature="*fp32:16, *fp32:16, i32:16, i32, i32:16, 1024",
                     args={"stride_x": 4097})
    (load,) = [f for f in ids(report, "TTI005") if f.title.startswith("loads")]
    assert load.severity == "info" and "stride_x = 4097 at launch, not a multiple of 16" in load.fix


def test_the_api_and_the_command_line_find_the_same():
    api = inspect(RMS, "sm_90", args=rms_args(8192), config=RMS_CONFIG)
    cli_options = RefOptions.from_cli(("BLOCK_SIZE=4096", "num_stages=3"),
                                      ("x_ptr=*fp16", "w_ptr=*fp16", "out_ptr=*fp16", "n_cols=8192", "stride=8192",
                                       "eps=1e-6"), None, None, "sm_90")
    _, cli = check_reference(RMS, cli_options)
    assert [f.as_dict() for f in api.findings] == [f.as_dict() for f in cli]
    assert api == report_from_build(api.build)  # the same facts: the values change the findings only


@pytest.mark.slow  # compiles
def test_inspect_takes_the_captured_source_as_the_command_line_does():
    """A capture from another machine: its files are not here; `source="captured"` compiles the text it kept
    (as `--source captured`), and without it the one line says so."""
    ref = str(Path(__file__).parent / "data" / "captures" / "example.ttcap") + ":tiled_mm#1"
    with pytest.raises(UsageError, match="--source captured"):
        inspect(ref)
    report = inspect(ref, source="captured")
    assert report.kernel.endswith("tiled_mm") and report.facts

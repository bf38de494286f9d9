"""A measured device profile (perf/profile.py): read as hostile input, laid over its datasheet row, and said
in every output (`--device-profile` on predict, sweep and diff; `calibrate` itself needs a GPU:
tests/gpu/test_calibrate_gpu.py)."""

from __future__ import annotations

import json

import pytest

from cli_helpers import assert_one_line_error, run_cli
from ttinspect.errors import UsageError
from ttinspect.perf.calibrate import row_for_gpu
from ttinspect.perf.devices import find_device
from ttinspect.perf.model import LAUNCH_US, Prediction
from ttinspect.perf.profile import MAX_BYTES, measured_device, profile_from_dict, read_profile, with_profile
from ttinspect.perf.terms import HBM_ACHIEVABLE, TC_ACHIEVABLE

GOOD = {"format": 1, "kind": "ttinspect-device-profile", "device": "H200", "gpu": "NVIDIA H200", "arch": "sm_90",
        "measured_at": "2026-01-02T03:04:05+00:00", "sms": 132, "tflops": {"fp16": 600.0, "fp32": 65.0},
        "hbm_gbps": 4000.0, "l2_gbps": 11000.0, "launch_us": 3.0}


def write(tmp_path, record, name="p.json"):
    path = tmp_path / name
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    return path


def test_a_good_profile_is_read_and_laid_over_its_row(tmp_path):
    profile = read_profile(write(tmp_path, GOOD))
    assert profile.device == "H200" and profile.label == "measured profile p.json (NVIDIA H200, 2026-01-02)"
    device = measured_device(find_device("H200"), profile)
    # a reached rate enters as the peak the model takes its achievable share of: the model predicts the rate
    assert device.tflops["fp16"] * TC_ACHIEVABLE == pytest.approx(600.0)
    assert device.hbm_gbps * HBM_ACHIEVABLE == pytest.approx(4000.0)
    assert device.tflops["fp8"] == find_device("H200").tflops["fp8"]  # not measured: the datasheet's
    assert device.l2_gbps == 11000.0 and not device.l2_gbps_assumed


@pytest.mark.parametrize("change, fragment", [
    ({"kind": "other"}, "is not a device profile"),
    ({"device": "H300"}, "unknown device 'H300'"),
    ({"device": None}, "'device' is missing"),
    ({"hbm_gbps": -1}, "'hbm_gbps' is -1, outside what a GPU measures"),
    ({"hbm_gbps": "fast"}, "'hbm_gbps' is \"fast\", not a number"),
    ({"tflops": {"fp16": 1e9}}, "'tflops.fp16' is 1000000000.0, outside"),
    ({"tflops": {"int4": 5}}, "names 'int4'"),
    ({"tflops": [1, 2]}, "'tflops' is not an object"),
    ({"launch_us": True}, "'launch_us' is true, not a number"),
    ({"sms": 0}, "'sms' is not a count of SMs"),
    ({"arch": "sm_80"}, "sm_80 is not H200's target sm_90"),
    ({"gpu": "x\x1b[31m"}, "'gpu' is not a short line of text"),
    ({"extra": 1}, "has keys a profile does not: extra"),
])
def test_a_bad_field_is_one_line_naming_it(tmp_path, change, fragment):
    with pytest.raises(UsageError, match="--device-profile .*p.json: ") as caught:
        read_profile(write(tmp_path, {**GOOD, **change}))
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("text, fragment", [
    ("{not json", "not JSON"), ('{"hbm_gbps": NaN}', "not JSON"), ("[1, 2]", "is not a JSON object"),
    ("[" * 60000, "not JSON"),
])
def test_a_file_that_is_not_a_profile_is_one_line(tmp_path, text, fragment):
    with pytest.raises(UsageError, match=fragment):
        read_profile(write(tmp_path, text))


def test_a_large_file_a_folder_and_a_missing_one_are_refused_unread(tmp_path):
    with pytest.raises(UsageError, match=f"more than a profile's {MAX_BYTES}"):
        read_profile(write(tmp_path, " " * (MAX_BYTES + 1)))
    with pytest.raises(UsageError, match="not a regular file"):
        read_profile(tmp_path)
    with pytest.raises(UsageError, match="cannot be read"):
        read_profile(tmp_path / "absent.json")


def test_a_prediction_with_a_profile_says_so_and_takes_its_launch_cost():
    profile = profile_from_dict(GOOD, "p.json")
    p = Prediction(0.1, "DRAM", {"launch": LAUNCH_US * 1e-3, "DRAM": 0.1 - LAUNCH_US * 1e-3}, {}, 100.0, 1000.0,
                   "H200", ("datasheet figures for H200", "every SM at the boost clock"))
    said = with_profile(p, profile)
    assert said.assumptions[0].startswith("measured profile p.json (NVIDIA H200, 2026-01-02) for H200")
    assert said.breakdown["launch"] == pytest.approx(3e-3)
    assert said.time_ms == pytest.approx(sum(said.breakdown.values()))
    assert said.details["figures"].startswith("measured profile")
    assert with_profile(p, None).details["figures"] == "datasheet"


def test_a_profile_of_another_device_is_refused():
    with pytest.raises(UsageError, match="measured on a H200, not the H100 SXM"):
        measured_device(find_device("H100 SXM"), profile_from_dict(GOOD, "p.json"))


@pytest.mark.parametrize("name, arch, row", [
    ("NVIDIA H100 80GB HBM3", "sm_90", "H100 SXM"), ("NVIDIA H100 PCIe", "sm_90", "H100 PCIe"),
    ("NVIDIA H200", "sm_90", "H200"), ("NVIDIA H20", "sm_90", "H20"), ("NVIDIA A100-SXM4-80GB", "sm_80", "A100 SXM"),
    ("NVIDIA GeForce RTX 4090", "sm_89", "RTX 4090"), ("NVIDIA B200", "sm_100", "B200"),
])
def test_calibrate_knows_the_row_from_the_gpus_name(name, arch, row):
    assert row_for_gpu(name, arch).name == row


def test_a_gpu_of_no_row_is_one_line_asking_for_device():
    with pytest.raises(UsageError, match="name it with --device"):
        row_for_gpu("NVIDIA RTX A6000", "sm_86")


def test_the_cli_refuses_a_bad_profile_in_one_line_before_compiling(tmp_path):
    bad = write(tmp_path, {**GOOD, "hbm_gbps": 0})
    for command in (["predict", "add"], ["sweep", "add", "--grid", "BLOCK_SIZE=512,1024"], ["diff", "add", "add"]):
        assert_one_line_error(run_cli(*command, "--device-profile", str(bad)), 2, "'hbm_gbps' is 0")


def test_calibrate_without_a_gpu_is_one_line(tmp_path):
    from ttinspect.gpu.presence import gpu_driver_present

    if gpu_driver_present():
        pytest.skip("a GPU driver is here: calibrate would measure")
    result = run_cli("calibrate", "-o", str(tmp_path / "x.json"))
    assert_one_line_error(result, 5, "needs a CUDA GPU")
    assert not (tmp_path / "x.json").exists()


def test_a_profile_names_the_target_when_no_arch_or_device_is_given(tmp_path):
    # a profile of an A100 SXM: `predict naive --device-profile a100.json` compiles for sm_80 (it said "runs sm_80,
    # not sm_89" before), as `--device "A100 SXM"` does
    path = write(tmp_path, {**GOOD, "device": "A100 SXM", "gpu": "NVIDIA A100-SXM4-80GB", "arch": "sm_80"})
    result = run_cli("predict", "naive", "--size", "1024", "--device-profile", str(path), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["device"] == "A100 SXM" and data["details"]["tensor_core_path"] == "mma.sync"

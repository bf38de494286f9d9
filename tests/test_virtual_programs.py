"""nvidia-smi's answers under the virtual device (virtual/smi_answers.py): the formats read on an H200
(nvidia-smi 580.159.04), the numbers the device's; what it does not know is refused, never made up."""

from __future__ import annotations

import pytest

from ttinspect.targets.lookup import parse_arch
from ttinspect.virtual import smi_answers
from ttinspect.virtual.numbers import numbers_for

H100 = numbers_for(parse_arch("sm_90"))
MI300X = numbers_for(parse_arch("gfx942"))


@pytest.mark.parametrize(("argv", "printed"), [
    (["--query-gpu=name,compute_cap,count,clocks.max.sm,clocks.max.memory,index", "--format=csv"],
     "name, compute_cap, count, clocks.max.sm [MHz], clocks.max.memory [MHz], index\n"
     "NVIDIA H100 80GB HBM3, 9.0, 1, 1980 MHz, 2619 MHz, 0\n"),
    (["--query-gpu=name,clocks.max.sm", "--format=csv,noheader"], "NVIDIA H100 80GB HBM3, 1980 MHz\n"),
    (["--query-gpu=clocks.max.sm", "--format=csv,nounits"], "clocks.max.sm [MHz]\n1980\n"),  # header keeps it
    (["-i", "0", "--query-gpu=clocks.max.sm", "--format=csv,noheader,nounits"], "1980\n"),  # Triton's nvsmi
    (["--query-gpu=name"], "name\nNVIDIA H100 80GB HBM3\n"),  # no --format: csv with its header
    (["-L"], "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)\n"),
])
def test_what_the_device_knows_is_printed_as_nvidia_smi_prints_it(argv, printed):
    assert smi_answers.nvidia_smi(argv, H100) == (printed, 0)


def test_a_gpu_past_the_last_is_not_found_as_nvidia_smi_says():
    assert smi_answers.nvidia_smi(["-i", "3", "-L"], H100) == ("No devices were found\n", 6)


@pytest.mark.parametrize(("argv", "why"), [
    (["--query-gpu=memory.total", "--format=csv"], "before the driver's reservation"),
    (["--query-gpu=driver_version", "--format=csv"], "the GPU machine's driver"),
    (["--query-gpu=utilization.gpu", "--format=csv"], "measured on the running GPU"),
    (["--query-gpu=uuid", "--format=csv"], "names one physical GPU"),
    (["--query-gpu=bogus.field", "--format=csv"], "not a field the virtual device knows"),
    ([], "the status table"),
    (["--query-gpu=name", "--format=json"], "only csv"),
])
def test_what_it_does_not_know_is_unknown_with_the_reason(argv, why):
    with pytest.raises(smi_answers.Unknown) as raised:
        smi_answers.nvidia_smi(argv, H100)
    assert why in str(raised.value)


def test_the_other_vendors_tools_are_not_installed_on_a_machine_of_the_target():
    assert smi_answers.absent_on_target("rocm-smi", H100) and smi_answers.absent_on_target("nvidia-smi", MI300X)
    assert not smi_answers.absent_on_target("nvidia-smi", H100) and not smi_answers.absent_on_target("rocm-smi",
                                                                                                        MI300X)

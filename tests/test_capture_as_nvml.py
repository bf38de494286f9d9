"""NVML asked through a library's own ctypes binding (device-smi's shape; issue 39): the stand-in libnvidia-ml
answers at C level what the device knows — return codes and out-parameters, as the real library (read on an
H200) — and returns NVML_ERROR_NOT_SUPPORTED, counted as a refusal, for the rest, so the library's fallback
runs. A whole run (`capture --as sm_90`) and the C calling convention, one case at a time."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import pytest
from cli_helpers import run_process
from test_capture_as_classes import launches_of

from ttinspect.capture import read
from ttinspect.targets.lookup import parse_arch
from ttinspect.virtual import smi
from ttinspect.virtual.device import virtual_device
from ttinspect.virtual.refusal import refusals_made

DATA = Path(__file__).parent / "data" / "capture_as"


def test_a_librarys_own_nvml_binding_reads_the_device_and_its_launch_is_recorded(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "prog.py").write_text((DATA / "nvml_ctypes_binding.py").read_text())
    done = run_process("capture", "--as", "sm_90", "-o", "run.ttcap", "--", sys.executable, "prog.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "count 1\nname NVIDIA H100 80GB HBM3\ncapability (9, 0) max SM clock 1980\n" in done.stdout
    assert "memory unknown (NVML error 3: Not Supported)" in done.stdout  # the library's fallback ran
    said = [line for line in done.stderr.splitlines() if line.startswith("ttinspect capture --as")]
    assert len(said) == 1 and "the program caught 1 question(s)" in said[0], done.stderr
    assert "prog.py:53 asks nvmlDeviceGetMemoryInfo() of libnvidia-ml.so.1" in said[0]
    assert "NVML_ERROR_NOT_SUPPORTED (3)" in said[0]
    # the tile the H100's capability chose, launched after NVML answered
    assert launches_of(read(tmp_path / "run.ttcap"), "scale") == {(("BLOCK", 1024),): 1}


@pytest.fixture
def nvml():
    """libnvidia-ml under sm_90's virtual device: the stand-in, whatever this machine has installed."""
    with virtual_device(parse_arch("sm_90")):
        yield ctypes.CDLL("libnvidia-ml.so.1")


def handle_of(nvml, index: int = 0) -> ctypes.c_void_p:
    handle = ctypes.c_void_p()
    assert nvml.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(handle)) == 0
    return handle


def test_nvml_counts_inits_and_answers_only_after_one(nvml):
    count = ctypes.c_uint(7)
    assert nvml.nvmlDeviceGetCount_v2(ctypes.byref(count)) == 1 and count.value == 7  # NVML_ERROR_UNINITIALIZED
    assert nvml.nvmlShutdown() == 1
    assert nvml.nvmlInit_v2() == 0 and nvml.nvmlInitWithFlags(0) == 0
    assert nvml.nvmlDeviceGetCount(ctypes.pointer(count)) == 0 and count.value == 1
    assert nvml.nvmlShutdown() == 0 and nvml.nvmlShutdown() == 0 and nvml.nvmlShutdown() == 1


@pytest.mark.parametrize(("call", "code", "expected"), [
    (lambda lib, h: lib.nvmlDeviceGetName(h, ctypes.create_string_buffer(96), 96), 0, None),
    (lambda lib, h: lib.nvmlDeviceGetName(h, ctypes.create_string_buffer(4), 4), 7, None),  # INSUFFICIENT_SIZE
    (lambda lib, h: lib.nvmlDeviceGetName(h, None, 96), 2, None),  # NULL: INVALID_ARGUMENT
    (lambda lib, h: lib.nvmlDeviceGetName(ctypes.c_void_p(12345678), ctypes.create_string_buffer(96), 96), 2, None),
    (lambda lib, h: lib.nvmlDeviceGetHandleByIndex_v2(1, ctypes.byref(ctypes.c_void_p())), 2, None),  # past the last
    (lambda lib, h: lib.nvmlDeviceGetCount_v2(None), 2, None),
    (lambda lib, h: lib.nvmlDeviceGetMaxClockInfo(h, 4, ctypes.byref(ctypes.c_uint())), 2, None),  # no such clock
    (lambda lib, h: lib.nvmlDeviceGetMaxClockInfo(h, 3, ctypes.byref(ctypes.c_uint())), 3, "NVML_CLOCK_VIDEO"),
    (lambda lib, h: lib.nvmlDeviceGetUUID(h, ctypes.create_string_buffer(96), 96), 3, "uuid: it names one"),
    (lambda lib, h: lib.nvmlDeviceGetPowerUsage(h, ctypes.byref(ctypes.c_uint())), 3, "measured on the running GPU"),
])
def test_nvml_return_codes_are_the_real_librarys(nvml, call, code, expected):
    """Codes read from libnvidia-ml on an H200: what the device cannot answer is NOT_SUPPORTED (3) and counted
    as a refusal with the caller's line; an invalid argument is 2 and no refusal."""
    assert nvml.nvmlInit() == 0
    before = len(refusals_made())
    assert call(nvml, handle_of(nvml)) == code
    made = refusals_made()[before:]
    if expected is None:
        assert made == []
    else:
        assert len(made) == 1 and "test_capture_as_nvml.py:" in made[0] and expected in made[0], made


def test_nvml_writes_its_answers_through_every_kind_of_pointer(nvml):
    assert nvml.nvmlInit_v2() == 0
    handle = handle_of(nvml)
    name = ctypes.create_string_buffer(96)
    assert nvml.nvmlDeviceGetName(handle, name, ctypes.c_uint(96)) == 0 and name.value == b"NVIDIA H100 80GB HBM3"
    major, minor = ctypes.c_int(), ctypes.c_int()
    assert nvml.nvmlDeviceGetCudaComputeCapability(handle.value, major, ctypes.pointer(minor)) == 0
    assert (major.value, minor.value) == (9, 0)
    values = (ctypes.c_uint * 3)()  # byref with an offset: the third element
    assert nvml.nvmlDeviceGetMaxClockInfo(handle, 2, ctypes.byref(values, 8)) == 0 and list(values) == [0, 0, 2619]
    assert nvml.nvmlDeviceGetIndex(handle, ctypes.byref(values)) == 0 and values[0] == 0
    assert nvml.nvmlDeviceGetMultiGpuBoard(handle, ctypes.byref(values)) == 0 and values[0] == 0
    nvml.nvmlErrorString.restype = ctypes.c_char_p
    assert [nvml.nvmlErrorString(code) for code in (0, 3, 12345)] == [b"Success", b"Not Supported", b"Unknown Error"]


def test_a_bindings_errcheck_sees_each_result_as_ctypes_would_call_it(nvml):
    def errcheck(result, function, arguments):
        if result != 0:
            raise RuntimeError(f"{function.__name__} -> {result}")
        return arguments
    nvml.nvmlDeviceGetCount_v2.errcheck = errcheck
    with pytest.raises(RuntimeError, match="nvmlDeviceGetCount_v2 -> 1"):
        nvml.nvmlDeviceGetCount_v2(ctypes.byref(ctypes.c_uint()))


def test_a_bytes_object_as_an_out_buffer_is_ctypes_argument_error(nvml):
    assert nvml.nvmlInit_v2() == 0
    with pytest.raises(ctypes.ArgumentError, match="a bytes cannot be written through"):
        nvml.nvmlDeviceGetName(handle_of(nvml), b"\0" * 96, 96)


def test_every_load_of_the_library_shares_its_state_as_dlopen_does(nvml):
    assert nvml.nvmlInit_v2() == 0
    again = ctypes.cdll.LoadLibrary("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so")
    assert again.nvmlDeviceGetCount_v2(ctypes.byref(ctypes.c_uint())) == 0


@pytest.mark.parametrize(("arch", "absent"), [("sm_90", "libamd_smi.so"), ("gfx942", "libnvidia-ml.so.1")])
def test_the_other_vendors_library_is_absent_whatever_is_installed(arch, absent):
    with virtual_device(parse_arch(arch)), pytest.raises(OSError, match="cannot open shared object file"):
        ctypes.CDLL(absent)


def test_amd_smis_stand_in_returns_not_supported_for_its_c_functions():
    """No AMD SMI C function is answered at C level yet (none read on an AMD GPU): each returns
    AMDSMI_STATUS_NOT_SUPPORTED and is counted as a refusal, so a library's own binding takes its fallback."""
    with virtual_device(parse_arch("gfx942")):
        amdsmi = ctypes.CDLL("/opt/rocm/lib/libamd_smi.so")
        before = len(refusals_made())
        assert amdsmi.amdsmi_init(2) == 2
        assert "amdsmi_init() of libamd_smi.so" in refusals_made()[before]


@pytest.mark.parametrize(("clock", "mhz"), [(0, 1980), (1, 1980), (2, 2619)])
def test_pynvmls_max_clock_is_the_same_answer(clock, mhz):
    """NVML's Python binding is answered from the same numbers as its C functions."""
    with virtual_device(parse_arch("sm_90")):
        answers = smi.nvml_answers(sys.modules[__name__])
        assert answers["nvmlDeviceGetMaxClockInfo"](answers["nvmlDeviceGetHandleByIndex"](0), clock) == mhz

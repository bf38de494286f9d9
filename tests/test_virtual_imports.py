"""What real libraries ask at import, under the virtual device: torch._C's private CUDA entries (Inductor's
`from torch._C import _cuda_getCurrentRawStream as get_raw_stream`), torch.cuda.is_initialized(), and platform
detection through NVML / AMD SMI / torch.version.hip — each the target's answer or a refusal naming the line."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

from ttinspect.targets.lookup import parse_arch
from ttinspect.virtual.device import virtual_device
from ttinspect.virtual.refusal import VirtualDeviceError

torch = pytest.importorskip("torch")
DATA = Path(__file__).parent / "data" / "virtual_imports"


def load(path: Path, name: str, **globals_):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    vars(module).update(globals_)
    spec.loader.exec_module(module)
    return module


def test_inductors_private_stream_entry_imports_and_refuses_only_when_called():
    assert not hasattr(torch._C, "_cuda_getCurrentRawStream") or torch.cuda.is_available()
    with virtual_device(parse_arch("sm_90")):
        from torch._C import _cuda_getCurrentRawStream as get_raw_stream, _cuda_getDeviceCount, _cuda_getDevice

        assert (_cuda_getDeviceCount(), _cuda_getDevice()) == (1, 0)
        with pytest.raises(VirtualDeviceError, match=r"test_virtual_imports.py:\d+ asks torch._C."
                                                     r"_cuda_getCurrentRawStream\(\), which the virtual device"):
            get_raw_stream(0)
        with pytest.raises(VirtualDeviceError, match="a fact of the torch build"):
            torch._C._cuda_getArchFlags()
    assert torch.cuda.is_available() or not hasattr(torch._C, "_cuda_getCurrentRawStream")  # gone after


@pytest.mark.parametrize("initialises", [
    lambda: torch.empty(4, device="cuda"), lambda: torch.cuda.current_device(), lambda: torch.cuda.init(),
    lambda: torch.cuda.get_device_capability(), lambda: torch.cuda.set_device(0),
])
def test_is_initialized_is_false_until_the_code_initialises_cuda(initialises):
    with virtual_device(parse_arch("sm_90")):
        torch.cuda.is_available(), torch.cuda.device_count()  # these do not initialise CUDA in torch
        assert torch.cuda.is_initialized() is False
        initialises()
        assert torch.cuda.is_initialized() is True
    with virtual_device(parse_arch("sm_90")):
        assert torch.cuda.is_initialized() is False  # each outermost block is a fresh process


@pytest.mark.parametrize("arch, platform", [("sm_90", "cuda"), ("gfx942", "rocm")])
def test_a_serving_engines_platform_detection_finds_the_target(arch, platform):
    pytest.importorskip("pynvml")
    with virtual_device(parse_arch(arch)):
        module = load(DATA / "platform_detection.py", f"platform_detection_{arch}")
    assert module.PLATFORM == platform


def test_nvml_answers_the_device_and_refuses_what_only_a_driver_knows():
    pynvml = pytest.importorskip("pynvml")
    with virtual_device(parse_arch("sm_90")):
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        assert pynvml.nvmlDeviceGetName(handle) == "NVIDIA H100 80GB HBM3"
        assert pynvml.nvmlDeviceGetCudaComputeCapability(handle) == (9, 0)
        with pytest.raises(VirtualDeviceError, match=r"test_virtual_imports.py:\d+ asks nvmlDeviceGetMemoryInfo"):
            pynvml.nvmlDeviceGetMemoryInfo(handle)
    with virtual_device(parse_arch("gfx942")):
        with pytest.raises(pynvml.NVMLError_LibraryNotFound):
            pynvml.nvmlInit()


FAKE_NVML = """
class NVMLError(Exception):
    pass

NVML_ERROR_LIBRARY_NOT_FOUND = 12

def nvmlInit():
    raise NVMLError(NVML_ERROR_LIBRARY_NOT_FOUND)

def nvmlShutdown():
    pass

def nvmlDeviceGetCount():
    raise NVMLError(1)

def nvmlDeviceGetPciInfo(handle):
    raise NVMLError(1)
"""

FAKE_AMDSMI = """
def amdsmi_init(flags=0):
    raise OSError("libamd_smi.so: cannot open shared object file")

def amdsmi_shut_down():
    pass

def amdsmi_get_processor_handles():
    raise OSError("not initialised")

def amdsmi_get_gpu_asic_info(handle):
    raise OSError("not initialised")

def amdsmi_get_gpu_device_uuid(handle):
    raise OSError("not initialised")
"""


@pytest.fixture
def vendored(tmp_path, monkeypatch):
    """A library that vendors its own NVML binding (engine.third_party.pynvml) and a stand-in amdsmi binding,
    imported only after the device is entered."""
    package = tmp_path / "vendoring_engine"
    (package / "third_party").mkdir(parents=True)
    for init in (package / "__init__.py", package / "third_party" / "__init__.py"):
        init.write_text("")
    (package / "third_party" / "pynvml.py").write_text(FAKE_NVML)
    (tmp_path / "amdsmi_standin.py").write_text(FAKE_AMDSMI)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    for name in [n for n in sys.modules if n.startswith(("vendoring_engine", "amdsmi_standin"))]:
        del sys.modules[name]


@pytest.mark.parametrize("arch, platform", [("sm_90", "cuda"), ("gfx90a", "rocm"), ("gfx1100", "rocm")])
def test_a_binding_imported_later_or_vendored_gets_the_targets_answers(vendored, arch, platform):
    with virtual_device(parse_arch(arch)):
        module = load(DATA / "platform_detection.py", f"platform_vendored_{arch}",
                      NVML_MODULE="vendoring_engine.third_party.pynvml", AMDSMI_MODULE="amdsmi_standin")
        assert module.PLATFORM == platform
        smi = importlib.import_module("amdsmi_standin")
        if platform == "rocm":
            info = smi.amdsmi_get_gpu_asic_info(smi.amdsmi_get_processor_handles()[0])
            assert info["target_graphics_version"] == arch and info["vendor_id"] == "0x1002"
            assert info["num_of_compute_units"] == {"gfx90a": 110, "gfx1100": 96}[arch]
            with pytest.raises(VirtualDeviceError, match=r"\['device_id'\], which .* does not know"):
                info["device_id"]
            with pytest.raises(VirtualDeviceError, match="amdsmi_get_gpu_device_uuid"):
                smi.amdsmi_get_gpu_device_uuid(smi.amdsmi_get_processor_handles()[0])
        else:
            assert smi.amdsmi_get_processor_handles() == []
    assert sys.modules["vendoring_engine.third_party.pynvml"].nvmlShutdown.__module__ != "ttinspect.virtual.smi"


def test_amds_binding_imports_under_an_amd_device_where_its_library_is_absent():
    if importlib.util.find_spec("amdsmi") is None:  # installed or not: its C library is absent here
        pytest.skip("amdsmi is not installed")
    for name in [n for n in sys.modules if n.startswith("amdsmi")]:
        del sys.modules[name]
    try:
        with virtual_device(parse_arch("gfx942")):
            import amdsmi

            amdsmi.amdsmi_init()
            handles = amdsmi.amdsmi_get_processor_handles()
            assert amdsmi.amdsmi_get_gpu_asic_info(handles[0])["market_name"] == "AMD Instinct MI300X"
            with pytest.raises(VirtualDeviceError, match="amdsmi_get_gpu_vram_usage"):
                amdsmi.amdsmi_get_gpu_vram_usage(handles[0])
    finally:
        for name in [n for n in sys.modules if n.startswith("amdsmi")]:
            del sys.modules[name]


def test_torch_version_hip_names_the_vendor():
    with virtual_device(parse_arch("gfx942")):
        assert torch.version.hip == "6.4.1" and torch.version.cuda is None
    with virtual_device(parse_arch("sm_90")):
        assert torch.version.hip is None and torch.version.cuda == "12.8"


def test_an_inductor_style_file_imports_under_the_device(tmp_path):
    path = tmp_path / "generated.py"
    path.write_text(textwrap.dedent("""
        import torch
        from torch._C import _cuda_getCurrentRawStream as get_raw_stream
        assert torch.cuda.is_initialized() is False
        buf = torch.empty((16, 16), device="cuda", dtype=torch.float32)
        READY = torch.cuda.is_initialized()
    """))
    with virtual_device(parse_arch("sm_90")):
        module = load(path, "generated_inductor_file")
    assert module.READY is True


def test_a_class_that_bound_torch_cuda_before_the_device_answers_too():
    """torch._dynamo's CudaInterface keeps torch.cuda's functions as staticmethods bound at its import: imported
    before the device (Helion, Inductor), it answers as the device while one is active, and as before after."""
    interface = importlib.import_module("torch._dynamo.device_interface").CudaInterface
    before = interface.get_device_properties
    with virtual_device(parse_arch("sm_90")):
        assert interface.get_device_properties(0).multi_processor_count == 132
        assert interface.device_count() == 1
    assert interface.get_device_properties is before


def test_tensors_made_beside_a_tensor_on_the_device_stay_there():
    """`empty_like(x, device=x.device)`, `.to("cuda", dtype)`, `new_empty(..., device=)`, `device_of(x)`:
    what library code writes to allocate next to its inputs (measured on libraries never used before)."""
    torch = pytest.importorskip("torch")
    with virtual_device(parse_arch("sm_90")):
        x = torch.ones(64, 32, device="cuda", dtype=torch.bfloat16)
        made = [torch.empty_like(x, dtype=torch.float32, device=x.device), torch.zeros_like(x, device="cuda:0"),
                x.to("cuda", torch.float16), x.to(device="cuda", dtype=torch.float32),
                x.new_empty((3, 4), device=x.device)]
        assert [str(t.device) for t in made] == ["cuda:0"] * 5
        assert [t.dtype for t in made] == [torch.float32, torch.bfloat16, torch.float16, torch.float32,
                                           torch.bfloat16]
        assert x.to(x.device) is x and x.cuda() is x
        assert torch.cuda.get_device_properties(torch.cuda.device_of(x)).multi_processor_count == 132


STREAM_AT_IMPORT = textwrap.dedent("""\
    import ctypes

    import torch
    import triton
    import triton.language as tl

    # a launcher keeping each device's raw stream handle from import on (as unsloth's kernels/utils.py does)
    STREAMS = [ctypes.c_void_p(torch._C._cuda_getCurrentRawStream(i)) for i in range(torch.cuda.device_count())]
    torch.cuda.synchronize()


    @triton.jit
    def double_kernel(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
""")


def test_a_file_imported_for_a_report_gets_the_stream_it_keeps_at_import(tmp_path):
    """A report's import launches nothing: a stream handle (or synchronize) asked at import has the whole run's
    true, harmless answer (the default stream), where an ordinary block refuses it (above)."""
    from cli_helpers import run_cli_ok

    (tmp_path / "streamlib.py").write_text(STREAM_AT_IMPORT)
    out = run_cli_ok("report", tmp_path / "streamlib.py:double_kernel", "--arch", "sm_90", "--signature",
                     "*fp32, i32", "--set", "BLOCK=1024")
    assert "double_kernel" in out and "sm_90" in out
    with virtual_device(parse_arch("sm_90"), imports_only=True):
        assert torch._C._cuda_getCurrentRawStream(0) == 0
    with virtual_device(parse_arch("sm_90")):
        with pytest.raises(VirtualDeviceError, match="_cuda_getCurrentRawStream"):
            torch._C._cuda_getCurrentRawStream(0)

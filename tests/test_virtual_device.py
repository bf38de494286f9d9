"""The virtual device (ttinspect/virtual/): each face answers as the target's GPU would — torch.cuda, torch.version,
"cuda" tensors, Triton's driver.active and its utilities — on the real torch 2.13 CPU build and the installed
Triton; overrides reach every face; what it cannot answer is refused naming the user's file:line; everything is
restored after the block (an exception and nesting included); torch is never imported for the code.

The files under tests/data/device_paths/ are written like real kernel files; h100.json is what they computed
on an H100 (`record.py`, run there): sm_90's virtual device must compute the same."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
import triton
from torch.overrides import _get_current_function_mode_stack
from triton.runtime import driver

from ttinspect.errors import UsageError
from ttinspect.kernel.argument_types import Scalar
from ttinspect.refs.launch import plan
from ttinspect.targets.lookup import all_names, parse_arch
from ttinspect.virtual import triton_face
from ttinspect.virtual.devices import DEVICES
from ttinspect.virtual.device import VirtualDeviceError, parse_device_props, virtual_device

PATHS = Path(__file__).parent / "data" / "device_paths"
sys.path.insert(0, str(PATHS))
import record  # noqa: E402  (tests/data/device_paths/record.py: what those files compute, GPU or virtual)

RECORDED = json.loads((PATHS / "h100.json").read_text())


@pytest.fixture(autouse=True)
def no_bytecode(monkeypatch):
    """The fixture files are imported from the source tree: leave no __pycache__ there."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)


def line_of(path: Path, text: str) -> int:
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def assert_asked_at(error: VirtualDeviceError, path: Path, line: int | None = None) -> None:
    """The refusal names `path` (relative to where the tests run, or absolute) and, given, the line."""
    assert error.where, str(error)
    where, _, number = error.where.rpartition(":")
    assert Path(where).resolve() == path.resolve() and str(error).startswith(error.where + " asks "), str(error)
    assert line is None or int(number) == line, str(error)


def snapshot() -> dict:
    """Everything the virtual device touches, as it is outside a block."""
    return {"available": torch.cuda.is_available(), "cuda": torch.version.cuda, "hip": torch.version.hip,
            "functions": {name: getattr(torch.cuda, name) for name in dir(torch.cuda) if not name.startswith("_")},
            "built": torch.backends.cuda.is_built, "driver": dict(vars(driver)),
            "modes": len(_get_current_function_mode_stack()), "meta_path": list(sys.meta_path)}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90", "sm_120", "gfx942", "gfx1100"])
def test_every_face_answers_as_the_targets_gpu(arch):
    target = parse_arch(arch)
    amd = target.amd is not None
    spec = DEVICES[target.name]
    with virtual_device(target):
        assert torch.cuda.is_available() and torch.cuda.device_count() == 1 and torch.cuda.current_device() == 0
        assert (torch.version.cuda is None) == amd and (torch.version.hip is None) == (not amd)
        props = torch.cuda.get_device_properties("cuda")
        assert props.name == spec.name == torch.cuda.get_device_name(0)
        assert props.multi_processor_count == spec.multiprocessors
        assert props.warp_size == target.warp_size
        # limits come from the target tables, not a second copy
        assert hasattr(props, "shared_memory_per_block_optin") == (not amd)  # torch on ROCm has no opt-in
        assert props.max_threads_per_multi_processor == target.max_warps_per_sm * target.warp_size
        utils = driver.active.utils.get_device_properties(0)
        assert utils["max_shared_mem"] == target.max_shared_per_block
        assert utils["multiprocessor_count"] == spec.multiprocessors and utils["warpSize"] == target.warp_size
        current = driver.active.get_current_target()
        assert current.backend == ("hip" if amd else "cuda") and current.warp_size == target.warp_size
        assert current.arch == (target.name if amd else target.capability)
        assert torch.cuda.get_device_capability() == (props.major, props.minor)
        if amd:
            assert utils["arch"].split(":")[0] == target.name == props.gcnArchName.split(":")[0]
        else:
            assert props.major * 10 + props.minor == target.capability
        assert driver.active.get_active_torch_device() == torch.device("cuda", 0)
        assert driver.active.get_device_interface() is torch.cuda


def test_sm_90_computes_what_the_h100_computed():
    """record.py ran on an H100 (torch 2.11, Triton 3.6): the same files under sm_90's virtual device."""
    with virtual_device(parse_arch("sm_90")):
        assert record.files() == RECORDED["files"]
        seen = record.device()
    real = RECORDED["device"]
    assert seen["torch"] == real["torch"]
    assert seen["triton_utils"] == real["triton_utils"]
    for key in ("capability", "device_name", "is_bf16_supported", "target", "torch_version_hip"):
        assert seen[key] == real[key], key


def test_tutorial_matmul_lists_the_targets_own_configs():
    """Tutorial 03's shape: the CUDA list for an NVIDIA target, the HIP list (waves_per_eu) for an AMD one."""
    with virtual_device(parse_arch("sm_90")):
        cuda = record.load("tutorial_matmul").matmul_kernel.configs
    with virtual_device(parse_arch("gfx942")):
        hip = record.load("tutorial_matmul").matmul_kernel.configs
    assert len(cuda) == 6 and not any("waves_per_eu" in c.kwargs for c in cuda)
    assert len(hip) == 3 and all("waves_per_eu" in c.kwargs for c in hip)


@pytest.mark.parametrize(("arch", "block", "stages"), [("sm_90", 1024, 4), ("sm_80", 512, 3), ("gfx950", 256, 2)])
def test_configs_chosen_by_toolkit_and_capability(arch, block, stages):
    with virtual_device(parse_arch(arch)):
        module = record.load("capability_configs")
    assert (module.BLOCK, module.STAGES) == (block, stages)
    assert module.DEVICE_NAME == DEVICES[parse_arch(arch).name].name


def test_overrides_reach_every_face():
    overrides = parse_device_props(["num_sms=114", "l2=40MB", "name=NVIDIA H100 PCIe", "smem=200KiB"])
    assert overrides == {"multi_processor_count": 114, "L2_cache_size": 40 * 2 ** 20, "name": "NVIDIA H100 PCIe",
                         "shared_memory_per_block_optin": 200 * 1024}
    with virtual_device(parse_arch("sm_90"), overrides) as device:
        module = record.load("num_sms")
        assert (module.NUM_SMS, module.NUM_SM, module.SIZE_SMEM) == (114, 114, 200 * 1024)
        props = torch.cuda.get_device_properties(0)
        assert (props.L2_cache_size, props.name) == (40 * 2 ** 20, "NVIDIA H100 PCIe")
        assert device.describe() == ("virtual device: NVIDIA H100 PCIe (sm_90, 114 SMs; --device-props "
                                     "multi_processor_count=114 L2_cache_size=41943040 name=NVIDIA H100 PCIe "
                                     "shared_memory_per_block_optin=204800)")
        assert device.as_dict()["overrides"]["multi_processor_count"] == 114
        json.dumps(device.as_dict())


@pytest.mark.parametrize(("arch", "line"), [
    ("sm_90", "virtual device: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"),
    ("gfx942", "virtual device: AMD Instinct MI300X (gfx942, 304 CUs)"),
    ("gfx1100", "virtual device: AMD Radeon RX 7900 XTX (gfx1100, 48 WGPs)"),
])
def test_describe_names_the_device(arch, line):
    with virtual_device(parse_arch(arch)) as device:
        assert device.describe() == line
        assert device.as_dict()["target"] == parse_arch(arch).name


@pytest.mark.parametrize(("item", "fragment"), [
    ("num_sms", "takes KEY=VALUE"),
    ("=3", "takes KEY=VALUE"),
    ("cores=3", "unknown property 'cores'"),
    ("num_sms=many", "num_sms=many: expects a positive integer"),
    ("num_sms=0", "expects a positive integer"),
    ("num_sms=10KB", "expects a positive integer —"),
    ("l2=5XB", "KB, MB, GB"),
    ("warp_size=64", "set by the target itself"),
    ("cuda_version=twelve", "expects a version"),
    ("name=", "needs a value"),
])
def test_bad_device_props_are_one_line(item, fragment):
    with pytest.raises(UsageError) as caught:
        parse_device_props([item])
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_the_other_vendors_toolkit_is_refused():
    with pytest.raises(UsageError, match="gfx942 is an AMD target; its toolkit version is hip_version"):
        with virtual_device(parse_arch("gfx942"), parse_device_props(["cuda_version=12.8"])):
            pass


def test_an_unanswerable_question_names_the_users_line():
    path = PATHS / "unanswerable.py"
    with virtual_device(parse_arch("sm_90")):
        with pytest.raises(VirtualDeviceError) as caught:
            record.load("unanswerable")
    assert_asked_at(caught.value, path, line_of(path, "mem_get_info"))
    assert str(caught.value).endswith(" asks torch.cuda.mem_get_info(), which the virtual device (NVIDIA H100 80GB "
                                      "HBM3, for sm_90) cannot answer")
    assert isinstance(caught.value, UsageError)


@pytest.mark.parametrize("ask", [
    lambda: torch.cuda.synchronize(),
    lambda: torch.cuda.current_stream(),
    lambda: driver.active.get_current_stream(0),
    lambda: driver.active.utils.launch,
    lambda: driver.active.get_benchmarker()(lambda: None),
    lambda: torch.cuda.get_device_properties(0).uuid,
])
def test_what_a_gpu_alone_knows_is_refused_here(ask):
    with virtual_device(parse_arch("sm_90")):
        with pytest.raises(VirtualDeviceError) as caught:
            ask()
    assert_asked_at(caught.value, Path(__file__))


def test_a_number_without_a_source_is_refused_not_guessed():
    """B200's L2 has no source in the device table: refused, naming --device-props; also through Triton's own
    helper (the line named is this file's, not triton/testing.py's)."""
    from triton.testing import get_dram_gbps

    with virtual_device(parse_arch("sm_100")):
        with pytest.raises(VirtualDeviceError, match=r"L2_cache_size, which .* does not know .* --device-props "
                                                     r"L2_cache_size=VALUE"):
            print(torch.cuda.get_device_properties(0).L2_cache_size)
        with pytest.raises(VirtualDeviceError) as caught:
            get_dram_gbps()
    assert_asked_at(caught.value, Path(__file__))
    assert "['mem_clock_rate']" in str(caught.value)
    with virtual_device(parse_arch("sm_100"), parse_device_props(["mem_clock_rate=4000000"])):
        assert round(get_dram_gbps()) == round(4000000 * 8192 * 2 / 1e6 / 8)  # given, and the known bus width
    with virtual_device(parse_arch("sm_90")):
        assert round(get_dram_gbps()) == round(2619000 * 5120 * 2 / 1e6 / 8)  # the H100's numbers, as read


def test_tensors_on_the_virtual_device_have_a_shape_and_no_values():
    with virtual_device(parse_arch("sm_90")):
        module = record.load("allocates")
        x = torch.empty((64, 32), dtype=torch.float16, device="cuda")
        y = torch.ones(8).to("cuda")
        assert (x.device, x.is_cuda, x.shape, x.stride()) == (torch.device("cuda", 0), True, (64, 32), (32, 1))
        assert x.t().contiguous().stride() == (64, 1) and torch.empty_like(x).device.type == "cuda"
        assert y.device.type == "cuda" and y.cuda() is y and module.BLOCK == 1024
        assert x.data_ptr() % 512 == 0 and x[1:].data_ptr() - x.data_ptr() == 64  # an address, not values
        for read in (lambda: x.sum().item(), lambda: x.tolist(), lambda: x.cpu(), lambda: bool(y[0] > 0)):
            with pytest.raises(VirtualDeviceError, match=" of a tensor on the virtual device") as caught:
                read()
            assert_asked_at(caught.value, Path(__file__))
    with pytest.raises(AssertionError, match="not compiled with CUDA"):  # after the block: the CPU build again
        torch.empty(1, device="cuda")


def test_everything_is_restored_after_the_block_and_after_an_exception():
    before = snapshot()
    with virtual_device(parse_arch("sm_90")):
        assert torch.version.cuda == "12.8"
    assert snapshot() == before
    with pytest.raises(RuntimeError, match="boom"):
        with virtual_device(parse_arch("gfx942")):
            assert torch.version.hip is not None
            raise RuntimeError("boom")
    assert snapshot() == before


def test_blocks_nest_and_the_innermost_answers():
    before = snapshot()
    with virtual_device(parse_arch("sm_90")):
        with virtual_device(parse_arch("gfx942"), parse_device_props(["num_cus=300"])):
            assert torch.version.hip and torch.version.cuda is None
            assert driver.active.get_current_target().backend == "hip"
            assert torch.cuda.get_device_properties(0).multi_processor_count == 300
        assert torch.version.cuda == "12.8" and torch.version.hip is None
        assert driver.active.get_current_target().arch == 90
        assert torch.cuda.get_device_properties(0).multi_processor_count == 132
    assert snapshot() == before


@pytest.mark.parametrize(("release", "has_cooperative"), [("3.6.0", False), ("3.7.1", True)])
def test_the_amd_utilities_have_the_keys_of_the_installed_release(monkeypatch, release, has_cooperative):
    monkeypatch.setattr(triton, "__version__", release)
    with virtual_device(parse_arch("gfx942")):
        props = driver.active.utils.get_device_properties(0)
        assert props["max_threads_per_sm"] == 2048 and props["arch"] == "gfx942:sramecc+:xnack-"
        if has_cooperative:  # listed, but not known: refused when read
            with pytest.raises(VirtualDeviceError, match="cooperativeLaunch"):
                props["cooperativeLaunch"]
        else:
            with pytest.raises(KeyError):
                props["cooperativeLaunch"]


def test_a_triton_33_style_driver_config_is_restored():
    """Triton 3.3 kept the active driver in a plain `active` attribute; 3.4 on in `_active`."""
    from ttinspect.virtual.install import Installation

    class DriverConfig:
        def __init__(self):
            self.default = "the real one"
            self.active = self.default

        def set_active(self, chosen):
            self.active = chosen

    module = type(sys)("fake_driver_module")
    module.driver = DriverConfig()
    installation = Installation()
    installation.install_driver(module)
    assert isinstance(module.driver.active, triton_face.VirtualDriver)
    installation.remove()
    assert module.driver.active == "the real one"


def test_every_target_has_a_device():
    assert set(all_names()) == set(DEVICES)


@pytest.mark.parametrize(("arch", "which", "numbers", "note"), [
    ("sm_90", "all", [1, 3, 4, 5], "early_config_prune kept config(s) 1, 3, 4, 5 of 5"),
    ("sm_89", "all", [5], "early_config_prune kept config(s) 5 of 5"),
    ("sm_89", None, [5], "early_config_prune kept config(s) 5 of 5"),  # one left: a launch takes it untimed
    ("sm_90", 2, [2], "early_config_prune drops it: a launch would not time it"),
])
def test_early_config_prune_runs_on_the_virtual_device(arch, which, numbers, note):
    with virtual_device(parse_arch(arch)):
        module = record.load("num_sms")
        launches = plan(module.persistent_matmul, "persistent_matmul",
                        {"M": 4096, "N": 4096, "K": 4096, "NUM_SMS": module.NUM_SMS}, {}, which)
    assert [int(launch.label.split("#")[1]) for launch in launches] == numbers
    assert all(note in launch.note for launch in launches)


def test_an_early_config_prune_on_arguments_given_only_by_type():
    module = record.load("prune_by_size")
    kept = plan(module.scale_kernel, "scale_kernel", {"n": 600}, {}, "all")
    assert [launch.config["BLOCK"] for launch in kept] == [128, 512]
    with pytest.raises(UsageError, match="early_config_prune could not run on the arguments given .*n was given "
                                         "only as"):
        plan(module.scale_kernel, "scale_kernel", {"n": Scalar("i32")}, {}, "all")
    chosen = plan(module.scale_kernel, "scale_kernel", {"n": Scalar("i32")}, {}, 3)  # a config picked: a note
    assert chosen[0].config["BLOCK"] == 2048 and "early_config_prune could not run" in chosen[0].note


def test_torch_is_not_imported_for_code_that_does_not_import_it(tmp_path):
    """In a fresh process: a Triton-only file under the device leaves torch unimported; a file that imports
    torch during the block gets the device, and torch is itself again afterwards."""
    (tmp_path / "triton_only.py").write_text(textwrap.dedent("""
        import triton
        BACKEND = triton.runtime.driver.active.get_current_target().backend
    """))
    (tmp_path / "with_torch.py").write_text(
        "import torch\nSMS = torch.cuda.get_device_properties(0).multi_processor_count\n")
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from ttinspect.targets.lookup import parse_arch
        from ttinspect.virtual.device import virtual_device
        assert "torch" not in sys.modules
        with virtual_device(parse_arch("sm_90")):
            import triton_only
        assert triton_only.BACKEND == "cuda" and "torch" not in sys.modules, sorted(sys.modules)
        with virtual_device(parse_arch("sm_90")):
            import with_torch
        import torch
        assert with_torch.SMS == 132 and not torch.cuda.is_available() and torch.version.cuda is None
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_the_docs_table_is_the_device_table():
    rows = [line.split("|")[1:-1] for line in (Path(__file__).parent.parent / "docs" / "virtual-device.md")
            .read_text().splitlines() if line.startswith(("| sm_", "| gfx"))]
    shown = {cells[0].strip(): (cells[1].strip().removesuffix(" (one GCD)"), cells[2].split()[0]) for cells in rows}
    assert shown == {target: (spec.name, str(spec.multiprocessors or "—")) for target, spec in DEVICES.items()}


def test_a_device_index_selects_among_the_virtual_gpus():
    with virtual_device(parse_arch("sm_90"), parse_device_props(["gpus=2"])):
        with torch.cuda.device(1):
            assert torch.cuda.current_device() == 1 == driver.active.get_current_device()
            assert torch.empty(2, device="cuda").device == torch.device("cuda", 1)
        assert torch.cuda.current_device() == 0
        with pytest.raises(AssertionError, match="the virtual device has 2 GPU"):
            torch.cuda.get_device_properties(2)


def test_the_drivers_proxy_object_is_the_virtual_driver():
    """Triton's driver.active is a lazy proxy; code that reaches for its `_obj` (Inductor's generated files)
    gets the virtual driver, not a refusal."""
    import triton

    from ttinspect.targets.lookup import parse_arch
    from ttinspect.virtual.device import virtual_device

    with virtual_device(parse_arch("sm_90")):
        active = triton.runtime.driver.active
        assert active._obj is active and active._obj.get_current_target().arch == 90

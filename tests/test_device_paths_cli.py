"""The target's own code paths, through the CLI: a file that picks its configs by the device at import gets
the target's (CUDA configs for sm_90, HIP ones with AMD options for gfx942), in one process too; a config
pruned by the device's shared memory; `--device-props`; and a question the virtual device cannot answer is
one line naming the user's line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import assert_one_line_error, run_cli, run_cli_ok, run_process
from ttinspect.errors import EXIT_USAGE
from ttinspect.targets.releases import installed_version

DATA = Path(__file__).parent / "data" / "device_paths"
TUTORIAL = DATA / "tutorial_matmul.py"
MATMUL_SIGNATURE = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1"


def configs_of(arch: str, *extra: str) -> list[dict]:
    out = run_cli_ok("report", f"{TUTORIAL}:matmul_kernel", "--signature", MATMUL_SIGNATURE, "--config", "all",
                     "--arch", arch, "--json", *extra)
    return [row["config"] for row in json.loads(out)]


@pytest.mark.parametrize("arch, vendor_option, count", [("sm_90", None, 6), ("gfx942", "waves_per_eu", 3)])
def test_a_file_choosing_configs_by_the_driver_gets_the_targets(arch, vendor_option, count):
    configs = configs_of(arch)
    assert len(configs) == count
    assert all((vendor_option in config) == (vendor_option is not None) for config in configs)


def test_two_targets_in_one_process_each_import_the_file_again():
    assert len(configs_of("gfx942")) == 3
    assert len(configs_of("sm_90")) == 6
    assert len(configs_of("gfx942")) == 3


def test_early_config_prune_sees_the_devices_shared_memory():
    """Pruned by the device's opt-in shared memory: an sm_90 keeps the 160 KiB config an sm_89 drops."""
    base = ["report", f"{DATA / 'num_sms.py'}:persistent_matmul", "--signature",
            "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16", "--set", "NUM_SMS=132", "--config", "all"]
    hopper = run_cli_ok(*base, "--arch", "sm_90")
    ada = run_cli_ok(*base, "--arch", "sm_89")
    assert "early_config_prune kept config(s) 1, 3, 4, 5 of 5" in hopper
    assert "early_config_prune kept" in ada and "1, 3, 4, 5 of 5" not in ada


def test_device_props_reach_the_code():
    small = run_cli_ok("report", f"{DATA / 'num_sms.py'}:persistent_matmul", "--signature",
                       "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16", "--set", "NUM_SMS=132",
                       "--config", "all", "--arch", "sm_90", "--device-props", "shared_memory_per_block_optin=65536")
    assert "early_config_prune kept config(s) 5 of 5" in small


def test_a_wrong_device_prop_is_one_line():
    assert_one_line_error(run_cli("report", "opt", "--device-props", "nonsense_key=3"), EXIT_USAGE, "nonsense_key")


def test_what_the_virtual_device_cannot_answer_names_the_users_line():
    assert_one_line_error(run_cli("report", f"{DATA / 'unanswerable.py'}:copy_kernel", "--signature",
                                  "*fp32, *fp32, i32, 128", "--arch", "sm_90"), EXIT_USAGE,
                          "unanswerable.py:7", "torch.cuda.mem_get_info()", "cannot answer")


def test_outputs_name_the_virtual_device_only_when_the_code_asked_it():
    common = ["--signature", MATMUL_SIGNATURE, "--config", "2", "--arch", "sm_90"]
    text = run_cli_ok("report", f"{TUTORIAL}:matmul_kernel", *common)
    assert "virtual device: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)" in text.splitlines()[1]
    assert json.loads(run_cli_ok("report", f"{TUTORIAL}:matmul_kernel", *common, "--json"))["device"].startswith(
        "virtual device: NVIDIA H100")
    assert "virtual device:" in run_cli_ok("dump", f"{TUTORIAL}:matmul_kernel", *common).splitlines()[0]
    plain = Path(__file__).parent / "data" / "user_kernels" / "my_mm.py"
    quiet = run_cli_ok("report", f"{plain}:add_kernel", "--signature", "*fp32:16, *fp32:16, *fp32:16, i32:16",
                       "--set", "BLOCK=1024", "--json")
    assert "device" not in json.loads(quiet)


@pytest.mark.parametrize("arch, configs", [("sm_90", 6), ("gfx942", 3)])
def test_list_imports_the_file_as_the_targets_gpu_sees_it(arch, configs):
    listing = json.loads(run_cli_ok("list", str(TUTORIAL), "--arch", arch, "--json"))
    assert [k["autotune_configs"] for k in listing["kernels"] if k["name"] == "matmul_kernel"] == [configs]


def test_config_all_names_the_device_in_its_title_and_rows():
    text = run_cli_ok("report", f"{TUTORIAL}:matmul_kernel", "--signature", MATMUL_SIGNATURE, "--config", "all",
                      "--arch", "sm_90", "--width", "120")
    assert "virtual device: NVIDIA H100 80GB HBM3" in text.splitlines()[1]
    rows = json.loads(run_cli_ok("report", f"{TUTORIAL}:matmul_kernel", "--signature", MATMUL_SIGNATURE,
                                 "--config", "all", "--arch", "sm_90", "--json"))
    assert all(row["device"].startswith("virtual device: NVIDIA H100") for row in rows)


def test_is_available_is_a_question_too(tmp_path):
    """`torch.cuda.is_available()` choosing a branch is a device question: the output names the device."""
    path = tmp_path / "avail.py"
    path.write_text("import torch\nimport triton\nimport triton.language as tl\n\n"
                    "BLOCK = 2048 if torch.cuda.is_available() else 1024\n\n\n@triton.jit\n"
                    "def k(x_ptr, n, B: tl.constexpr = BLOCK):\n    o = tl.arange(0, B)\n"
                    "    tl.store(x_ptr + o, 1.0, mask=o < n)\n")
    report = json.loads(run_cli_ok("report", f"{path}:k", "--arg", "x_ptr=*fp32", "--arg", "n=4096",
                                   "--arch", "sm_90", "--json"))
    assert report["config"]["B"] == 2048 and report["device"].startswith("virtual device: NVIDIA H100")


def test_the_api_takes_device_props():
    import ttinspect

    base = {"signature": "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16", "config": "all"}
    with pytest.raises(ttinspect.UsageError, match="nonsense"):
        ttinspect.inspect(f"{DATA / 'num_sms.py'}:persistent_matmul", "sm_90", device_props={"nonsense": 1}, **base)


def test_check_names_the_virtual_device_too():
    common = ["--signature", MATMUL_SIGNATURE, "--config", "2", "--arch", "sm_90"]
    assert "virtual device: NVIDIA H100" in run_cli_ok("check", f"{TUTORIAL}:matmul_kernel", *common).splitlines()[1]
    data = json.loads(run_cli_ok("check", f"{TUTORIAL}:matmul_kernel", *common, "--format", "json"))
    assert data["device"].startswith("virtual device: NVIDIA H100")


DEVICE = "virtual device: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"
TRITON_HERE = installed_version()
ONE = ["--signature", MATMUL_SIGNATURE, "--config", "2", "--arch", "sm_90"]
TWO = ["--signature", MATMUL_SIGNATURE, "--config", "2", "--config", "3", "--arch", "sm_90"]


@pytest.mark.parametrize("command, options", [
    ("check", ["--format", "sarif"]), ("check", ["--format", "markdown"]), ("check", ["--format", "junit"]),
    ("diff", ["--format", "json"]), ("diff", ["--format", "markdown"]), ("diff", ["--format", "sarif"]),
    ("diff", ["--format", "junit"]), ("diff", []), ("sweep", ["--grid", "config=2..3"]),
    ("sweep", ["--grid", "config=2..3", "--json"]), ("passes", ["--json"]), ("report", ["--by-line"]),
    ("report", ["--by-line", "--json"]), ("versions", ["--triton", TRITON_HERE]),
    ("versions", ["--triton", TRITON_HERE, "--json"]),
])
def test_every_output_names_the_virtual_device(command, options):
    """docs/virtual-device.md: a config the code chose by the GPU is only as right as the GPU it was shown,
    so every format a command writes says which."""
    common = TWO if command == "diff" else ["--signature", MATMUL_SIGNATURE, "--arch", "sm_90"] \
        if command == "sweep" else ONE
    out = run_cli_ok(command, f"{TUTORIAL}:matmul_kernel", *common, *options, "--width", "200")
    assert DEVICE in out.replace("sm\\_90", "sm_90")  # Markdown escapes the underscore


def test_html_and_list_name_the_virtual_device(tmp_path):
    page = tmp_path / "page.html"
    run_cli_ok("html", f"{TUTORIAL}:matmul_kernel", *ONE, "-o", page)
    assert f"<th>device</th><td>{DEVICE}" in page.read_text()
    assert DEVICE in run_cli_ok("list", TUTORIAL, "--arch", "sm_90", "--width", "200")
    assert json.loads(run_cli_ok("list", TUTORIAL, "--arch", "sm_90", "--json"))["device"] == DEVICE
    plain = Path(__file__).parent / "data" / "user_kernels" / "my_mm.py"
    assert "device" not in json.loads(run_cli_ok("list", plain, "--json"))


@pytest.mark.parametrize("props, fits, limit", [((), True, 232448), (("smem=200KB",), True, 204800),
                                                (("max_shared_mem=131072",), False, 131072)])
def test_device_props_limits_reach_the_facts(props, fits, limit):
    """A smaller part's shared memory (--device-props) is what `fits`, occupancy and check read, and the
    output says so; the second run (the warm path, from the memo) gives the same."""
    extra = [arg for prop in props for arg in ("--device-props", prop)]
    for _ in range(2):
        rows = json.loads(run_cli_ok("report", f"{TUTORIAL}:matmul_kernel", "--signature", MATMUL_SIGNATURE,
                                     "--config", "all", "--arch", "sm_90", "--json", *extra))
        first = rows[0]
        assert first["facts"]["shared_memory"] == 147456 and first["facts"]["fits"] is fits
    one = json.loads(run_cli_ok("report", "opt", "--arch", "sm_90", "--json", *extra))
    assert one.get("target_limits", {}).get("max_shared_per_block", 232448) == limit
    text = run_cli_ok("report", "opt", "--arch", "sm_90", *extra, "--width", "200")
    assert (f"sm_90 with --device-props: shared memory per block {limit} B" in text) is bool(props)


def test_device_props_shared_memory_changes_occupancy_and_refuses_what_does_not_fit():
    def occupancy(*extra: str) -> str:
        report = json.loads(run_cli_ok("report", "opt", "--arch", "sm_90", "--json", *extra))
        return report["facts"]["occupancy"]["value"]

    assert occupancy() != occupancy("--device-props", "smem=48KB")
    assert_one_line_error(run_cli("report", "opt", "--arch", "sm_90", "--device-props", "smem=16KB"), 3,
                          "Hardware limit: 16384", "sm_90 with --device-props")


def test_sweep_loads_the_file_under_each_targets_device():
    """`--grid config=all` over two targets: each target's own config list (6 CUDA configs, 3 HIP ones), the
    file imported under each target's virtual device (it asks Triton's driver at import)."""
    rows = json.loads(run_cli_ok("sweep", f"{TUTORIAL}:matmul_kernel", "--signature", MATMUL_SIGNATURE, "--grid",
                                 "config=all", "--arch", "sm_90,gfx942", "--json"))["rows"]
    assert [(r["target"], r["point"]["config"]) for r in rows] == [
        *(("sm_90", n) for n in range(1, 7)), *(("gfx942", n) for n in range(1, 4))]
    assert not any(r["error"] for r in rows)


def test_the_other_vendors_toolkit_version_is_the_options_mistake_not_the_files():
    result = run_cli("report", f"{TUTORIAL}:matmul_kernel", "--signature", MATMUL_SIGNATURE, "--config", "1",
                     "--arch", "sm_90", "--device-props", "hip_version=6.4")
    assert_one_line_error(result, EXIT_USAGE, "--device-props hip_version: sm_90 is an NVIDIA target")
    assert "importing" not in result.output


@pytest.mark.parametrize("ref, extra", [
    (f"{Path(__file__).parent / 'data' / 'user_kernels' / 'my_mm.py'}:add_kernel",
     ["--signature", "*fp32:16, *fp32:16, *fp32:16, i32:16", "--set", "BLOCK=1024"]),
    ("naive", []),
])
def test_device_props_nothing_read_say_so(ref, extra):
    """--device-props num_sms=114 on a kernel whose code asks nothing changed nothing: one warning says so
    (a limit, shared memory or registers, still reaches the facts and is not warned about)."""
    # a process of its own: a question asked by any import of the process may have chosen what a kernel uses
    result = run_process("report", ref, *extra, "--arch", "sm_90", "--device-props", "num_sms=114")
    assert result.returncode == 0, result.stderr
    assert "--device-props multi_processor_count:" in result.stderr and "the device nothing" in result.stderr
    quiet = run_process("report", ref, *extra, "--arch", "sm_90", "--device-props", "smem=200KB")
    assert quiet.returncode == 0 and "changed nothing" not in quiet.stderr


ASKS_A_PROGRAM = '''import subprocess
import threading

import triton
import triton.language as tl

found = []


def probe():
    try:
        found.append(subprocess.run(["nvidia-smi"], capture_output=True).returncode == 0)  # the status table
    except:  # noqa: E722 - as a library that swallows it
        pass


thread = threading.Thread(target=probe)
thread.start()
thread.join()
if SWALLOWED and not found:
    raise RuntimeError("No device were detected on your machine !\\n Please check your driver.")
if not SWALLOWED:
    subprocess.check_output("nvidia-smi --query-gpu=memory.used --format=csv", shell=True)  # the running GPU's


@triton.jit
def k(x_ptr):
    tl.store(x_ptr, 1.0)
'''


@pytest.mark.parametrize("swallowed", [False, True])
def test_a_program_that_reads_the_gpu_is_refused_and_named(tmp_path, swallowed):
    """nvidia-smi asked what only the running GPU knows (its status table, the memory in use) under the virtual
    device: refused in one line naming the line that ran it; where the code
    swallows the refusal and then fails for want of a GPU, that failure's line names the program too."""
    path = tmp_path / "asks.py"
    path.write_text(ASKS_A_PROGRAM.replace("SWALLOWED", str(swallowed)))
    result = run_cli("report", f"{path}:k", "--arg", "x_ptr=*fp32", "--arch", "sm_90")
    if swallowed:
        assert_one_line_error(result, EXIT_USAGE, "No device were detected on your machine ! Please check",
                              "before it, the code ran nvidia-smi (", "asks.py:12)")
    else:
        assert_one_line_error(result, EXIT_USAGE, "asks.py:23 asks the program nvidia-smi (run through subprocess)",
                              "cannot answer")


def test_a_config_number_out_of_range_names_the_target_whose_list_it_is():
    """A file lists 6 configs for sm_90 and 3 for gfx942: `--config 5` on gfx942 says whose list it read."""
    result = run_cli("report", f"{TUTORIAL}:matmul_kernel", "--signature", MATMUL_SIGNATURE, "--config", "5",
                     "--arch", "gfx942")
    assert_one_line_error(result, EXIT_USAGE, "--config 5: matmul_kernel has 3 autotune config(s) for gfx942")


def test_limits_alone_are_said_on_the_html_page_and_a_variant_refuses_the_other_vendors_toolkit(tmp_path):
    page = tmp_path / "page.html"
    run_cli_ok("html", "opt", "--arch", "sm_90", "--device-props", "smem=200KB", "-o", page)
    assert "facts read sm_90 with --device-props: shared memory per block 204800 B" in page.read_text()
    assert_one_line_error(run_cli("report", "opt", "--arch", "sm_90", "--device-props", "hip_version=6.4"),
                          EXIT_USAGE, "--device-props hip_version: sm_90 is an NVIDIA target")

"""Every Triton from 3.3 to 3.9 and every NVIDIA target it compiles for: the measured table, the one-line
refusals, and the targets' limits in the facts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from triton_features import HOST_TMA, TRITON

from ttinspect import inspect
from ttinspect.targets import releases as versions
from ttinspect.cli.main import cli
from ttinspect.errors import CompileError, UsageError
from ttinspect.targets.nvidia import TARGETS
from ttinspect.targets.lookup import parse_arch

PROBES = sorted((Path(__file__).resolve().parents[1] / "docs" / "data" / "versions").glob("probe-*.json"))


def test_the_table_is_what_the_probes_measured():
    """versions.COMPILES_FOR must say what scripts/versions_probe.py found on each release."""
    assert len(PROBES) == 7
    for path in PROBES:
        probe = json.loads(path.read_text())
        release = tuple(int(x) for x in probe["triton"].split(".")[:2])
        measured = {f"sm_{cap}" for cap, result in probe["targets"].items() if result["ok"]}
        assert set(versions.COMPILES_FOR[release]) == measured, probe["triton"]


@pytest.mark.parametrize("name", ["sm_75", "sm_87", "sm_103", "sm_121"])
def test_the_new_targets_are_known(name):
    assert parse_arch(name).name == name


def test_a_target_without_verified_limits_says_so():
    with pytest.raises(UsageError) as info:
        parse_arch("sm_110")
    message = str(info.value)
    assert "Jetson Thor" in message and "Triton >= 3.7 compiles for it" in message and "\n" not in message


def test_a_target_the_installed_triton_cannot_compile_names_the_release_that_can(monkeypatch):
    monkeypatch.setattr(versions, "installed", lambda: (3, 4))
    with pytest.raises(UsageError, match=r"sm_103: the installed Triton 3\.4 cannot compile for it; "
                                         r"Triton >= 3\.6 can"):
        versions.check_supported("sm_103")
    versions.check_supported("sm_90")
    assert "sm_103" not in versions.supported_targets()
    monkeypatch.setattr(versions, "installed", lambda: (3, 99))  # not measured: nothing refused
    versions.check_supported("sm_103")


def test_cli_refuses_in_one_line(monkeypatch):
    monkeypatch.setattr(versions, "installed", lambda: (3, 5))
    result = CliRunner().invoke(cli, ["dump", "add", "--arch", "sm_121", "--stage", "ptx"])
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0 and "Triton >= 3.6 can" in result.stderr


def test_targets_command():
    result = CliRunner().invoke(cli, ["targets", "--width", "120"])  # AMD rows (gfx1100) widen the table
    assert result.exit_code == 0
    lines = {line.split()[0]: line for line in result.output.splitlines()[1:]}
    assert set(TARGETS) <= set(lines) and "T4" in lines["sm_75"] and "64 KB" in lines["sm_75"]
    rows = json.loads(CliRunner().invoke(cli, ["targets", "--json"]).output)
    sm75 = next(r for r in rows if r["target"] == "sm_75")
    assert sm75["max_warps_per_sm"] == 32 and sm75["usable"] is True
    thor = next(r for r in rows if r["target"] == "sm_110")
    assert thor["usable"] is False and thor["shared_per_sm"] is None


def test_arch_help_lists_the_installed_tritons_targets():
    result = CliRunner().invoke(cli, ["report", "--help"])
    help_text = " ".join(result.output.split())
    assert all(name in help_text for name in versions.supported_targets())


def test_turing_occupancy_uses_turings_limits():
    """sm_75: 32 warps and 16 blocks per SM, 64 KB of shared memory, nothing reserved per block."""
    report = inspect("add", arch="sm_75")
    assert report.blocks_per_sm == 8  # 4 warps per block: 32 / 4
    assert report["occupancy"] == "100%"
    assert "KB reserved" not in report.fact("blocks_per_sm").explanation


@pytest.mark.slow  # compiles
def test_turing_pipeline_is_what_the_ptx_shows():
    """Turing has no cp.async: the loop loads with plain ld.global, and the depth says so."""
    if TRITON < (3, 4):
        with pytest.raises(CompileError, match="Volta/Turing"):
            inspect("opt", arch="sm_75")
        return
    report = inspect("opt", arch="sm_75")
    fact = report.fact("pipeline_depth")
    assert fact.value == 1 and "no asynchronous copies" in fact.explanation
    assert report["loop_cp_async"] == {} or not report["loop_cp_async"]


def test_tma_on_a_triton_without_host_descriptors_is_one_line():
    if HOST_TMA:
        pytest.skip("this Triton compiles host-side tensor descriptors")
    result = CliRunner().invoke(cli, ["report", "opt_tma", "--arch", "sm_90"])
    assert result.exit_code == 3
    assert "Triton >= 3.4 can" in result.stderr and result.stderr.strip().count("\n") == 0


@pytest.mark.parametrize("gpu", [True, False])
def test_offline_imports_lets_the_files_own_error_through(monkeypatch, gpu):
    """Triton 3.3's path (forced here): with or without a GPU, an error the user's file raises while it
    is imported reaches the user as itself."""
    from triton.runtime import driver

    from ttinspect.compile import jit as compiled

    monkeypatch.setattr(compiled, "VERSION", (3, 3))

    class FakeGPU:
        def get_current_target(self):
            return "cuda:90"

    saved = dict(vars(driver))
    if gpu:
        driver.set_active(FakeGPU())
    try:
        with pytest.raises(ValueError, match="the file's own"):
            with compiled.offline_imports():
                raise ValueError("the file's own error")
    finally:
        vars(driver).clear()
        vars(driver).update(saved)


WS_KERNEL = '''import triton
import triton.language as tl


@triton.jit
def ws(a_ptr, c_ptr, K, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK, warp_specialize=True):
        a = tl.load(a_ptr + r[:, None] * K + k + r[None, :])
        acc += tl.dot(a, a)
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)
'''


def test_warp_specialization_or_the_release_that_has_it(tmp_path):
    path = tmp_path / "ws_kernel.py"
    path.write_text(WS_KERNEL)
    result = CliRunner().invoke(cli, ["dump", f"{path}:ws", "--signature", "*fp16:16, *fp32:16, i32:16, 64",
                                      "--arch", "sm_100", "--stage", "ttgir"])
    if TRITON < (3, 4):
        assert result.exit_code == 3 and "tl.range(warp_specialize=...) needs Triton >= 3.4" in result.stderr
        return
    assert result.exit_code == 0 and "tt.warp_specialize" in result.stdout

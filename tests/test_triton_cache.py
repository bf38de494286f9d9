"""Triton's cache: `ttinspect cache [DIR]` lists what a real run compiled, `cache:PREFIX` inspects one entry;
Triton's directory is never written to; damaged, partial and foreign entries degrade to unknowns with a
reason, or one clear line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import assert_one_line_error, run_cli, run_cli_ok

DATA = Path(__file__).parent / "data"
USER_FILE = DATA / "user_kernels" / "my_mm.py"
GPU_FIXTURE = DATA / "triton_cache"  # a real run on an H100 (scripts/device_triton_cache.sh)


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


@pytest.fixture(scope="module")
def real_cache(tmp_path_factory) -> Path:
    """A Triton cache written by Triton itself: the user file's kernels compiled for two targets."""
    root = tmp_path_factory.mktemp("triton_cache")
    env = {**os.environ, "TRITON_CACHE_DIR": str(root), "TTINSPECT_CACHE_DIR": str(root.parent / "ttc-fill")}
    for ref, arch in ((f"{USER_FILE}:add", "sm_80"), (f"{USER_FILE}:small", "sm_90"), (f"{USER_FILE}:big", "sm_90")):
        subprocess.run([sys.executable, "-m", "ttinspect", "dump", ref, "--arch", arch, "--stage", "ttir"],
                       env=env, check=True, capture_output=True)
    return root


def _entry_of(root: Path, name: str, arch: int) -> Path:
    for meta in root.glob(f"*/{name}.json"):
        if json.loads(meta.read_text())["target"]["arch"] == arch:
            return meta.parent
    raise AssertionError(f"no {name} for {arch} in {root}")


def test_listing_reads_every_kernel(real_cache):
    before = _snapshot(real_cache)
    rows = {(r["name"], r["target"]): r for r in json.loads(run_cli_ok("cache", real_cache, "--json"))}
    assert set(rows) >= {("add_kernel", "sm_80"), ("matmul", "sm_90")}
    add = rows[("add_kernel", "sm_80")]
    assert add["num_warps"] == 4 and add["shared"] == 0 and add["tensor_core_path"] == "none"
    assert add["source"] == f"{USER_FILE}:40" and add["triton_version"] and add["missing"] == []
    assert isinstance(add["registers"], int) and add["spills"] == 0
    assert add["depth"] is None and add["unknown"]["depth"].startswith("not applicable")
    mms = [r for (name, _), r in rows.items() if name == "matmul"]
    assert all(r["tensor_core_path"] == "wgmma" for r in mms)
    assert sorted(r["depth"] for r in mms) == sorted(r["num_stages"] for r in mms)
    assert _snapshot(real_cache) == before  # read-only
    table = run_cli_ok("cache", real_cache, "--width", "160")
    assert "add_kernel" in table and "my_mm.py:40" in table
    narrow = run_cli_ok("cache", real_cache)  # 80 columns: the least needed columns are left out, and named
    assert "add_kernel" in narrow and "left out at 80 columns:" in narrow and "source" in narrow
    assert max(len(line) for line in narrow.splitlines()) <= 80


def test_name_glob_and_sort(real_cache):
    rows = json.loads(run_cli_ok("cache", real_cache, "--name", "mat*", "--sort", "-shared", "--json"))
    assert rows and all(r["name"] == "matmul" for r in rows)
    assert [r["shared"] for r in rows] == sorted((r["shared"] for r in rows), reverse=True)
    assert_one_line_error(run_cli("cache", real_cache, "--sort", "colour"), 2, "--sort colour", "registers")


def test_cache_reference_matches_the_compile(real_cache):
    entry = _entry_of(real_cache, "add_kernel", 80)
    env = {"TRITON_CACHE_DIR": str(real_cache)}
    ptx = run_cli_ok("dump", f"cache:{entry.name[:8]}", "--no-header", env=env)
    assert ptx == (entry / "add_kernel.ptx").read_text()
    assert ptx == run_cli_ok("dump", f"{USER_FILE}:add", "--arch", "sm_80", "--no-header")
    report = json.loads(run_cli_ok("report", f"cache:{entry.name[:8].lower()}", "--json", env=env))
    assert report["target"] == "sm_80" and report["facts"]["num_warps"]["value"] == 4
    assert report["facts"]["block_sizes"]["value"] is None
    assert "does not record" in report["facts"]["block_sizes"]["unknown"]
    sass = run_cli_ok("dump", f"cache:{entry.name[:8]}", "--stage", "sass", env=env)
    assert "EXIT" in sass and not (entry / "kernel.sass").exists() and not list(entry.glob("*.sass"))
    by_line = json.loads(run_cli_ok("report", f"cache:{entry.name[:8]}", "--by-line", "--json", env=env))
    assert by_line["kernel_file"] == str(USER_FILE)


def test_diff_two_cache_entries(real_cache):
    a = _entry_of(real_cache, "add_kernel", 80).name[:8]
    b = _entry_of(real_cache, "matmul", 90).name[:8]
    data = json.loads(run_cli_ok("diff", f"cache:{a}", f"cache:{b}", "--json",
                                 env={"TRITON_CACHE_DIR": str(real_cache)}))
    assert any(c["key"] == "tensor_core_path" for c in data["changes"])


def test_api_takes_cache_references(real_cache, monkeypatch):
    from ttinspect import inspect
    from ttinspect.pytest_plugin import expect

    monkeypatch.setenv("TRITON_CACHE_DIR", str(real_cache))
    entry = _entry_of(real_cache, "add_kernel", 80).name
    assert inspect(f"cache:{entry[:8]}").tensor_core_path == "none"
    expect(f"cache:{entry[:8]}", num_warps=4, spills=0)


def test_bad_cache_references(real_cache, tmp_path):
    env = {"TRITON_CACHE_DIR": str(real_cache)}
    assert_one_line_error(run_cli("report", "cache:ZZZZZZZZ", env=env), 2, "no entry", "starts with 'ZZZZZZZZ'")
    assert_one_line_error(run_cli("report", "cache:", env=env), 2, "needs an entry id prefix")
    assert_one_line_error(run_cli("report", "cache:matmul", env=env), 2, "2 entries match; give more characters")
    entry = _entry_of(real_cache, "add_kernel", 80).name
    assert_one_line_error(run_cli("report", f"cache:{entry[:8]}", "--arch", "sm_90", env=env), 2, "compiled for sm_80")
    assert_one_line_error(run_cli("report", f"cache:{entry[:8]}", "--set", "BLOCK=64", env=env), 2, "already compiled",
                          "--set")
    assert_one_line_error(run_cli("cache", tmp_path / "nowhere"), 2, "no such Triton cache directory")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_one_line_error(run_cli("cache", empty), 2, "empty")
    foreign = tmp_path / "foreign"
    (foreign / "sub").mkdir(parents=True)
    (foreign / "sub" / "notes.txt").write_text("hello")
    assert_one_line_error(run_cli("cache", foreign), 2, "no Triton kernel entries")


def test_partial_damaged_and_foreign_entries(real_cache, tmp_path):
    root = tmp_path / "cache"
    shutil.copytree(real_cache, root)
    partial = _entry_of(root, "add_kernel", 80)
    (partial / "add_kernel.ptx").unlink()
    (partial / "add_kernel.cubin").unlink()
    amd = root / "AMDENTRY"
    amd.mkdir()
    (amd / "k.json").write_text(json.dumps({"name": "k", "target": {"backend": "hip", "arch": "gfx942"},
                                            "num_warps": 4, "num_stages": 2, "shared": 0}))
    (amd / "k.amdgcn").write_text("; amdgcn\n")
    broken = root / "BROKENJSON"
    broken.mkdir()
    (broken / "__grp__b.json").write_text("{}")
    (broken / "b.json").write_text("{not json")
    (broken / "b.ptx").write_text("")
    rows = {r["id"]: r for r in json.loads(run_cli_ok("cache", root, "--json"))}
    p = rows[partial.name]
    assert p["missing"] == ["ptx", "cubin"] and p["registers"] is None and p["depth"] is None
    assert "has no cubin" in p["unknown"]["registers"] and "has no ptx" in p["unknown"]["depth"]
    # an AMD entry is read like any other; its stub assembly has no function, so its facts are unknown
    assert rows["AMDENTRY"]["target"] == "hip:gfx942" and "no function" in rows["AMDENTRY"]["unknown"]["registers"]
    assert "cannot be read" in rows["BROKENJSON"]["unknown"]["*"]
    env = {"TRITON_CACHE_DIR": str(root)}
    report = json.loads(run_cli_ok("report", f"cache:{partial.name[:10]}", "--json", env=env))
    assert report["facts"]["pipeline_depth"]["value"] is None
    assert "has no ptx" in report["facts"]["pipeline_depth"]["unknown"]
    assert_one_line_error(run_cli("dump", f"cache:{partial.name[:10]}", "--stage", "ptx", env=env), 1, "has no ptx")
    amd_report = json.loads(run_cli_ok("report", "cache:AMDENTRY", "--json", env=env))  # an AMD entry reads too
    assert amd_report["target"] == "gfx942" and amd_report["facts"]["tensor_core_path"]["value"] is None
    assert "has no function" in amd_report["facts"]["tensor_core_path"]["unknown"]


def test_a_changed_entry_is_read_again(real_cache, tmp_path):
    root = tmp_path / "cache"
    shutil.copytree(real_cache, root)
    first = {r["id"]: r for r in json.loads(run_cli_ok("cache", root, "--json"))}
    entry = _entry_of(root, "add_kernel", 80)
    (entry / "add_kernel.ptx").unlink()
    second = {r["id"]: r for r in json.loads(run_cli_ok("cache", root, "--json"))}
    assert first[entry.name]["missing"] == [] and second[entry.name]["missing"] == ["ptx"]


@pytest.mark.skipif(not GPU_FIXTURE.is_dir(), reason="the H100 fixture is not in this checkout")
def test_the_h100_run_fixture():
    """A real run on an H100 (Triton 3.6): torch.compile of a transformer block plus a user's file."""
    rows = json.loads(run_cli_ok("cache", GPU_FIXTURE, "--json"))
    names = {r["name"] for r in rows}
    assert any(n.startswith("triton_") for n in names), names  # Inductor's kernels
    assert {"matmul", "add_kernel"} <= names
    assert all(r["target"] == "sm_90" for r in rows)
    assert all(isinstance(r["registers"], int) for r in rows if not r["missing"])
    assert all(r["source"] for r in rows)
    inductor = next(r for r in rows if r["name"].startswith("triton_"))
    data = json.loads(run_cli_ok("report", f"cache:{inductor['id'][:12]}", "--json",
                                 env={"TRITON_CACHE_DIR": str(GPU_FIXTURE)}))
    assert data["target"] == "sm_90" and data["facts"]["registers"]["value"] == inductor["registers"]


def _installed_triton() -> str:
    import importlib.metadata

    return importlib.metadata.version("triton")


def _code(ptx: str) -> list[str]:
    """The PTX without what depends on the machine rather than the compile: the `.version` line (the PTX
    ISA version Triton picks from the ptxas it finds: the H100 machine's CUDA 13 ptxas gives 9.0, the
    ptxas in Triton 3.6's wheel 8.7), the `.file` lines and the DWARF sections (they spell the kernel
    file's absolute path, i.e. where the checkout is)."""
    code = ptx.split("\t.section\t.debug_")[0]
    return [line for line in code.splitlines() if not line.startswith((".version", "\t.file"))]


@pytest.mark.skipif(not GPU_FIXTURE.is_dir() or _installed_triton() != "3.6.0",
                    reason="the H100 fixture was compiled by Triton 3.6.0; the PTX is compared under the same Triton")
@pytest.mark.parametrize("config", [1, 2, 3])
def test_offline_ptx_is_the_h100_launchs(config):
    """The user file's kernels, launched for real on the H100, are in the fixture: ttinspect's offline
    compile of `my_mm.py:matmul --config N` with the launch's arguments is the same code. (On the H100
    itself, with the same ptxas and path, it is byte-identical: tests/data/triton_cache_run/.)"""
    size = 1024
    args = [x for k, v in (("a_ptr", "*fp16"), ("b_ptr", "*fp16"), ("c_ptr", "*fp16"), ("M", size), ("N", size),
                           ("K", size), ("stride_am", size), ("stride_ak", 1), ("stride_bk", size), ("stride_bn", 1),
                           ("stride_cm", size), ("stride_cn", 1)) for x in ("--arg", f"{k}={v}")]
    offline = run_cli_ok("dump", f"{USER_FILE}:matmul", *args, "--config", str(config), "--arch", "sm_90",
                         "--no-header")
    launched = [_code(p.read_text()) for p in GPU_FIXTURE.glob("*/matmul.ptx")]
    assert _code(offline) in launched
    add = run_cli_ok("dump", f"{USER_FILE}:add_kernel", "--arg", "x_ptr=*fp32", "--arg", "y_ptr=*fp32", "--arg",
                     "out_ptr=*fp32", "--arg", "n=10000", "--arch", "sm_90", "--no-header")
    assert _code(add) == _code(next(GPU_FIXTURE.glob("*/add_kernel.ptx")).read_text())
    other = run_cli_ok("dump", f"{USER_FILE}:add_kernel", "--arg", "x_ptr=*fp32", "--arg", "y_ptr=*fp32", "--arg",
                       "out_ptr=*fp32", "--arg", "n=10001", "--arch", "sm_90", "--no-header")
    assert _code(other) != _code(add)  # the comparison can fail: n not divisible by 16 changes the code

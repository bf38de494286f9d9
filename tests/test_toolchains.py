"""One kernel under two Tritons: REF@triton=X.Y.Z through a toolchain (another environment, its worker),
warm without entering it, diffed and tabulated; bad input in one line.

The other release: TTINSPECT_TEST_TRITON_PYTHON (a python whose environment has another Triton: it is
registered), else a toolchain prepared from the package index (seconds from a local index or pip's cache).
Without either, the tests that compile are skipped — a failure under CI (TTINSPECT_CI=1)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import assert_error_last_line, run_cli

from ttinspect.toolchains import registry as toolchains
from ttinspect.errors import UsageError
from ttinspect.refs.resolver import split_triton

HERE = Path(__file__).resolve().parent
USER_FILE = HERE / "data" / "user_kernels" / "my_mm.py"


# --- the reference's syntax (no toolchain needed) -------------------------------------------------

@pytest.mark.parametrize("ref, expected", [
    ("opt", ("opt", None)),
    ("opt@triton=3.5.1", ("opt", "3.5.1")),
    ("opt:num_stages=3@sm_90@triton=3.5.1", ("opt:num_stages=3@sm_90", "3.5.1")),
    ("opt@triton=3.5.1@sm_90", ("opt@sm_90", "3.5.1")),
    ("my.py:kern@triton=3.6.0", ("my.py:kern", "3.6.0")),
])
def test_split(ref, expected):
    assert split_triton(ref) == expected


@pytest.mark.parametrize("ref, fragment", [
    ("opt@triton=3.x", "takes a release X.Y.Z"), ("opt@triton=", "takes a release X.Y.Z"),
    ("opt@triton=3.5", "takes a release X.Y.Z"), ("opt@triton=3.5.1@triton=3.6.0", "one @triton= at most"),
    ("opt@triton=3.2.0", "Triton 3.3 and later"), ("cache:abc@triton=3.5.1", "already compiled"),
    ("opt@triton=03.6.0", "takes a release X.Y.Z"), ("opt@triton=\uff13.\uff16.\uff10", "takes a release X.Y.Z"),
])
def test_bad_references_are_one_line(ref, fragment):
    assert_error_last_line(run_cli("report", ref), 2, fragment)


def test_bad_toolchain_commands_are_one_line(tmp_path):
    assert_error_last_line(run_cli("toolchains", "--remove", "3.4.0"), 2, "no such toolchain")
    assert_error_last_line(run_cli("toolchains", "--remove", "three"), 2, "expected X.Y.Z")
    assert_error_last_line(run_cli("toolchains", "--python", sys.executable), 2, "exactly one --add")
    assert_error_last_line(run_cli("toolchains", "--add", "3.4.0", "--python", str(tmp_path / "none")), 2,
                           "cannot run it")
    assert_error_last_line(run_cli("versions", "opt@triton=3.5.1"), 2, "without @triton=")
    assert_error_last_line(run_cli("versions", "opt", "--triton", "3.5"), 2, "expected X.Y.Z")
    assert_error_last_line(run_cli("versions", "cache:abc"), 2, "already compiled")
    assert_error_last_line(run_cli("toolchains", "--add", "03.6.0"), 2, "expected X.Y.Z")
    assert_error_last_line(run_cli("sweep", "opt@triton=3.5.1", "--grid", "num_stages=2,3"), 2, "installed Triton")


def test_offline_never_prepares(monkeypatch):
    monkeypatch.setenv(toolchains.OFFLINE_ENV, "1")
    with pytest.raises(UsageError, match="not prepared"):
        toolchains.prepare("3.4.0")
    monkeypatch.delenv(toolchains.OFFLINE_ENV)
    assert_error_last_line(run_cli("--offline", "report", "opt@triton=3.4.1"), 2, "is offline")
    monkeypatch.delenv(toolchains.OFFLINE_ENV, raising=False)  # the flag set it in this process


# --- with another Triton ------------------------------------------------------------------------

def _other_version() -> str:
    here = toolchains.installed_version()
    return "3.6.0" if here != "3.6.0" else "3.5.1"


@pytest.fixture(scope="module")
def other() -> str:
    """Another Triton release, ready to compile with."""
    python = os.environ.get("TTINSPECT_TEST_TRITON_PYTHON")  # set and empty: prepare one
    try:
        if python:
            return toolchains.register(toolchains.triton_of(python), python).version
        return toolchains.prepare(_other_version()).version
    except UsageError as error:
        if os.environ.get("TTINSPECT_CI"):
            raise
        pytest.skip(f"no other Triton here: {error}")


def test_report_under_another_triton(other):
    out = run_cli("report", f"opt@triton={other}", "--arch", "sm_90", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["triton_version"] == other and data["facts"]["pipeline_depth"]["value"] == 4
    dumped = run_cli("dump", f"opt@triton={other}", "--arch", "sm_90", "--stage", "ttgir")
    assert f"triton={other}" in dumped.output.splitlines()[0]


def test_warm_reads_the_record_without_the_environment(other, tmp_path):
    """Once compiled, the toolchain is not needed: its python made unreachable, the same reference still
    resolves, and the process never imports triton."""
    ref = f"opt:num_stages=2@triton={other}"
    assert run_cli("report", ref, "--arch", "sm_90").exit_code == 0
    record = toolchains.root() / f"{other}.json"
    saved = record.read_text()
    try:
        data = json.loads(saved)
        record.write_text(json.dumps({**data, "python": str(tmp_path / "gone" / "python")}))
        code = ("import sys, ttinspect; r = ttinspect.inspect(%r, arch='sm_90'); "
                "assert r.triton_version == %r; assert 'triton' not in sys.modules; print('ok')") % (ref, other)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert done.stdout.strip() == "ok", done.stderr
        # a cold reference meets the broken environment: one line, with the fix
        assert_error_last_line(run_cli("report", f"opt:num_stages=3@triton={other}", "--arch", "sm_90"), 2, "--remove")
    finally:
        record.write_text(saved)


def test_diff_across_versions(other):
    here = toolchains.installed_version()
    out = run_cli("diff", f"opt@triton={other}", "opt", "--arch", "sm_90", "--width", "120")
    assert out.exit_code == 0, out.output
    first = out.output.splitlines()[0]
    assert f"Triton {other} / {here}" in first
    assert f"opt@sm_90 · {other}" in out.output and f"opt@sm_90 · {here}" in out.output
    data = json.loads(run_cli("diff", f"opt@triton={other}", "opt", "--arch", "sm_90", "--json").output)
    assert data["facts"]["pipeline_depth"] == {"a": 4, "b": 4, "changed": False}
    assert (data["a"]["triton_version"], data["b"]["triton_version"]) == (other, here)
    passes = run_cli("diff", f"opt@triton={other}", "opt", "--arch", "sm_90", "--passes", "--width", "80").output
    assert f"(Triton {other})" in passes and max(len(line) for line in passes.splitlines()) <= 80


def test_api(other):
    import ttinspect

    d = ttinspect.diff("opt", "opt", arch="sm_90", triton=(other, None))
    assert (d.a.triton_version, d.b.triton_version) == (other, toolchains.installed_version())
    r = ttinspect.inspect("opt", arch="sm_90", triton=other, num_stages=3)
    assert r.pipeline_depth == 3 and r.triton_version == other
    with pytest.raises(UsageError):
        ttinspect.inspect(lambda: None, triton=other)


def test_user_file_and_an_edit(other, tmp_path):
    """A user's file under another Triton; editing it compiles it again (the record is keyed by sources)."""
    path = tmp_path / "my_mm.py"
    shutil.copy(USER_FILE, path)
    ref = f"{path}:add@triton={other}"
    first = json.loads(run_cli("report", ref, "--arch", "sm_90", "--json").output)
    assert first["triton_version"] == other
    path.write_text(path.read_text().replace('"add": {"kernel": add_kernel,',
                                             '"add": {"kernel": add_kernel, "config": {"num_warps": 8},'))
    second = json.loads(run_cli("report", ref, "--arch", "sm_90", "--json").output)
    assert (first["facts"]["num_warps"]["value"], second["facts"]["num_warps"]["value"]) == (4, 8)


def test_versions_table(other):
    here = toolchains.installed_version()
    rows = json.loads(run_cli("versions", "opt", "--arch", "sm_90", "--triton", f"{other},{here}", "--json").output)
    assert [r["triton"] for r in rows] == [other, here]
    assert all(r["error"] is None and r["facts"]["pipeline_depth"] == 4 for r in rows)
    text = run_cli("versions", "opt", "--arch", "sm_90", "--triton", f"{other},{here}").output
    assert f"{here}*" in text and "differs from the release above" in text
    failing = run_cli("versions", "opt", "--arch", "sm_90", "--triton", f"{other},3.4.99", "--json")
    assert failing.exit_code == 1  # a release that failed: the table says why, the exit code says so
    listed = json.loads(run_cli("toolchains", "--json").output)
    assert {"installed", "managed", "registered"} & {r["kind"] for r in listed}
    assert any(r["version"] == other and r["status"] == "ok" for r in listed)


def test_an_edited_helper_under_another_triton(other, tmp_path):
    from test_user_kernels_edge import HELPER, make_project

    kernel = make_project(tmp_path / "proj")

    def ops() -> int:
        out = run_cli("dump", f"{kernel}:k@triton={other}", "--signature", "*fp32:16, i32", "--stage", "ttir").output
        return sum(("arith.mulf" in line) or ("arith.addf" in line) for line in out.splitlines())

    assert ops() == 1
    (tmp_path / "proj" / "lib" / "helper.py").write_text(HELPER.replace("x * 2", "x * 3 + 1"))
    assert ops() == 2


def test_the_workers_warnings_are_the_users(capsys):
    """A package `__init__` skipped in another Triton's worker is said where the user reads it, once."""
    from ttinspect.toolchains.remote import _relay_warnings

    said = "pkg/__init__.py raised RuntimeError: needs 8 GPUs (pkg/__init__.py:4); pkg.ops is loaded without it"
    _relay_warnings(f"noise\nttinspect: warning: {said}\nttinspect: warning: {said}\n")
    assert capsys.readouterr().err == f"ttinspect: warning: {said}\n"

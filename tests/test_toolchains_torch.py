"""A toolchain carries what a user's kernel file imports: torch (as installed here: a CPU build) added on first
use, reused after; `--offline` refusing in one line that names what it would install; a missing import that
names its fix; a registered environment never changed.

The toolchain is a fresh managed one of another release (3.6.0; 3.5.1 where 3.6.0 is installed) in this
module's own cache, so torch is certainly absent at first. With TTINSPECT_TEST_TRITON_PYTHON (CI's previous
suite's venv, which has torch) that environment is registered instead: a torch file reports through it and
the tests that install are skipped — ttinspect never installs into a registered environment. Without a
package index the tests that need a toolchain are skipped (a failure under CI, TTINSPECT_CI=1).

What only this process has (a distribution on a sys.path entry of the test's) stands for a package the
toolchain lacks, without installing anything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import assert_error_last_line, assert_one_line_error, run_cli

from ttinspect.errors import UsageError
from ttinspect.toolchains import packages
from ttinspect.toolchains import registry as toolchains
from ttinspect.versions.worker import missing_module

TORCH_FILE = '''"""torch at module level, as kernel libraries write it: dtypes, tensors as the example's arguments."""
import torch
import triton
import triton.language as tl

OUT_DTYPE = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16}


@triton.jit
def scale(x_ptr, out_ptr, factor, n, BLOCK: tl.constexpr, OUT: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, (tl.load(x_ptr + offsets, mask=mask) * factor).to(OUT), mask=mask)


X = torch.empty(4096, dtype=torch.bfloat16)
TTINSPECT_EXAMPLES = {
    "bf16": {"kernel": scale, "args": {"x_ptr": X, "out_ptr": torch.empty_like(X), "factor": 0.5, "n": X.numel()},
             "config": {"BLOCK": BLOCK_VALUE, "OUT": OUT_DTYPE[X.dtype]}},
}
'''

IMPORTS_FILE = '''import {module}  # noqa: F401
import triton
import triton.language as tl


@triton.jit
def double(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) * 2, mask=offsets < n)
'''
SIGNATURE = ("--signature", "*fp32:16, i32", "--set", "BLOCK=128")

# A distribution no index has: what this process "has installed" in the tests below.
ONLY_HERE = "ttinspect-test-only-here"
ONLY_HERE_MODULE = "ttinspect_test_only_here"


def torch_file(folder: Path, block: int = 512) -> Path:
    path = folder / "scale_torch.py"
    path.write_text(TORCH_FILE.replace("BLOCK_VALUE", str(block)))
    return path


def imports_file(folder: Path, module: str) -> Path:
    path = folder / f"imports_{module}.py"
    path.write_text(IMPORTS_FILE.format(module=module))
    return path


@pytest.fixture(autouse=True)
def _online_after(monkeypatch):
    """`--offline` sets TTINSPECT_OFFLINE in this process: each test ends as it began."""
    monkeypatch.setenv(toolchains.OFFLINE_ENV, "0")


@pytest.fixture
def only_here(tmp_path, monkeypatch) -> str:
    """A distribution installed in this process only (a dist-info on a sys.path entry of the test's)."""
    site = tmp_path / "site"
    (site / ONLY_HERE_MODULE).mkdir(parents=True)
    (site / ONLY_HERE_MODULE / "__init__.py").write_text("")
    info = site / f"{ONLY_HERE.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {ONLY_HERE}\nVersion: 1.0\n")
    (info / "top_level.txt").write_text(ONLY_HERE_MODULE + "\n")
    monkeypatch.syspath_prepend(str(site))
    return ONLY_HERE_MODULE


# --- what is installed, and for which module (no toolchain needed) ---------------------------------------

def test_a_module_is_provided_by_the_distribution_installed_here(only_here, tmp_path):
    assert [h.requirement for h in packages.providers(only_here)] == [f"{ONLY_HERE}==1.0"]
    assert packages.providers("not_a_module_anywhere_here") == []
    assert packages.requirement_for(ONLY_HERE) == f"{ONLY_HERE}==1.0"  # by distribution name
    assert packages.requirement_for(only_here) == f"{ONLY_HERE}==1.0"  # by module name
    # not here: as pip reads it
    assert packages.requirement_for("surely-not-here-einops") == "surely-not-here-einops"
    assert packages.requirement_for("torch==2.10.0") == "torch==2.10.0"


@pytest.mark.parametrize("direct_url, requirement", [
    ({"url": "file://TMP/lib-1.0-py3-none-any.whl", "archive_info": {}},
     f"{ONLY_HERE} @ file://TMP/lib-1.0-py3-none-any.whl"),
    # the wheel it was installed from removed since: the index's release of that version
    ({"url": "file:///no/such/folder/lib-1.0-py3-none-any.whl", "archive_info": {}}, f"{ONLY_HERE}==1.0"),
    ({"url": "https://github.com/o/lib", "vcs_info": {"vcs": "git", "commit_id": "abc123"}},
     f"{ONLY_HERE} @ git+https://github.com/o/lib@abc123"),
    ({"url": "file:///src/lib", "dir_info": {"editable": True}}, None),
])
def test_a_package_from_a_file_or_a_vcs_is_installed_from_there(only_here, tmp_path, direct_url, requirement):
    (tmp_path / "lib-1.0-py3-none-any.whl").write_bytes(b"")
    direct_url = {**direct_url, "url": direct_url["url"].replace("TMP", str(tmp_path))}
    requirement = requirement and requirement.replace("TMP", str(tmp_path))
    info = next((tmp_path / "site").glob("*.dist-info"))
    (info / "direct_url.json").write_text(json.dumps(direct_url))
    (found,) = packages.providers(only_here)
    assert found.requirement == requirement
    if requirement is None:  # editable: a copy would go stale; --with asks for the folder
        with pytest.raises(UsageError, match="editable mode from /src/lib"):
            packages.requirement_for(ONLY_HERE)


def test_the_worker_names_a_missing_top_level_module_and_where():
    def raised(code: str) -> UsageError:
        try:
            exec(compile(code, "/proj/kernel.py", "exec"), {})
        except ImportError as error:
            wrapped = UsageError("importing /proj/kernel.py raised ...")
            wrapped.__cause__ = error
            return wrapped
        raise AssertionError("no ImportError")

    assert missing_module(raised("import not_installed_anywhere.sub")) == {
        "missing_module": "not_installed_anywhere", "missing_at": "/proj/kernel.py:1"}
    # a submodule missing from an installed package: another release's API, nothing to install
    assert missing_module(raised("\nimport json.not_a_submodule")) == {}
    assert missing_module(UsageError("no import involved")) == {}


@pytest.mark.parametrize("args, fragment", [
    (("--with", "einops"), "--with goes with --add"),
    (("--add", "3.6.0", "--with", "-e ."), "not an option"),
    (("--add", "3.6.0", "--with", "einops", "--python", sys.executable), "environment is yours"),
])
def test_bad_with_is_one_line(args, fragment):
    assert_one_line_error(run_cli("toolchains", *args), 2, fragment)


# --- with a toolchain of another release --------------------------------------------------------------

def _other_version() -> str:
    return "3.6.0" if toolchains.installed_version() != "3.6.0" else "3.5.1"


@pytest.fixture(scope="module")
def toolchain(tmp_path_factory):
    """Another release's toolchain in a cache of this module's own: managed and fresh (no torch), or the
    registered TTINSPECT_TEST_TRITON_PYTHON."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TTINSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("toolchain-cache")))
        python = os.environ.get("TTINSPECT_TEST_TRITON_PYTHON")
        try:
            if python:
                yield toolchains.register(toolchains.triton_of(python), python)
            else:
                yield toolchains.prepare(_other_version())
        except UsageError as error:
            if os.environ.get("TTINSPECT_CI"):
                raise
            pytest.skip(f"no other Triton here: {error}")


@pytest.fixture
def managed(toolchain):
    if not toolchain.managed:
        pytest.skip("the other Triton is a registered environment (TTINSPECT_TEST_TRITON_PYTHON): ttinspect never "
                    "installs into one; the suite with a managed toolchain covers it")
    return toolchain


def _has(toolchain, module: str) -> bool:
    code = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    return subprocess.run([toolchain.python, "-c", code], capture_output=True).returncode == 0


def test_offline_names_what_it_would_install(managed, tmp_path):
    """Before torch is there (this module's first test with the managed toolchain)."""
    assert not _has(managed, "torch")
    import torch  # here, not at the top: collecting the module stays light

    path = torch_file(tmp_path)
    line = assert_one_line_error(run_cli("--offline", "report", f"{path}:bf16@triton={managed.version}"), 2,
                                 f"No module named 'torch' in the Triton {managed.version} toolchain ({path}:2)",
                                 "is offline", f"torch=={torch.__version__}",
                                 f"`ttinspect toolchains --add {managed.version} --with torch`")
    assert "Traceback" not in line and not _has(managed, "torch")


def test_a_torch_file_reports_under_the_other_triton(toolchain, tmp_path):
    """The first run installs torch (managed: one note; registered: it has it), the next ones reuse it."""
    import torch  # as above

    if not toolchain.managed and not _has(toolchain, "torch"):
        pytest.skip(f"the registered {toolchain.python} has no torch, and ttinspect never installs into it")

    version = toolchain.version
    path = torch_file(tmp_path)
    first = run_cli("report", f"{path}:bf16@triton={version}", "--arch", "sm_90", "--json")
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert data["triton_version"] == version
    assert data["config"]["BLOCK"] == 512 and data["facts"]["registers"]["value"] > 0
    if toolchain.managed:
        assert (f"preparing torch {torch.__version__} for the Triton {version} toolchain (once; the version "
                f"installed here, which {path}:2 imports)") in first.stderr
        listed = json.loads(run_cli("toolchains", "--json").stdout)
        assert next(r for r in listed if r["version"] == version)["packages"] == [f"torch=={torch.__version__}"]
    # another compile of the file (an edit: a cold run) goes through the toolchain without installing again
    again = run_cli("report", f"{torch_file(tmp_path, block=256)}:bf16@triton={version}", "--arch", "sm_90",
                    "--json")
    assert again.exit_code == 0 and "preparing" not in again.stderr, again.output
    assert json.loads(again.stdout)["config"]["BLOCK"] == 256


def test_a_module_nobody_has_names_the_fix(toolchain, tmp_path):
    path = imports_file(tmp_path, "not_installed_anywhere")
    v = toolchain.version
    assert_one_line_error(run_cli("dump", f"{path}:double@triton={v}", *SIGNATURE, "--stage", "ttir"), 2,
                          f"No module named 'not_installed_anywhere' in the Triton {v} toolchain ({path}:1), "
                          "and nothing installed here provides it",
                          f"`ttinspect toolchains --add {v} --with PACKAGE`")


def test_a_module_only_this_environment_has(managed, only_here, tmp_path):
    """Offline: the refusal names the requirement; online: the installer's own reason, in one line."""
    path = imports_file(tmp_path, only_here)
    v = managed.version
    ref = f"{path}:double@triton={v}"
    assert_one_line_error(run_cli("dump", ref, *SIGNATURE, "--stage", "ttir", env={toolchains.OFFLINE_ENV: "1"}),
                          2, f"No module named '{only_here}'", f"it would install {ONLY_HERE}==1.0 (as here)")
    assert_error_last_line(run_cli("dump", ref, *SIGNATURE, "--stage", "ttir"), 2,
                           f"{ONLY_HERE}==1.0: cannot be installed in the Triton {v} toolchain")


def test_a_module_reference_whose_package_only_this_environment_has(managed, only_here, tmp_path):
    """`pkg.mod:kernel@triton=X`: the package the reference names is this environment's, its file compiled by
    the toolchain's Triton (refs/caller_packages.py) — nothing to install, the user's own file (an edit to it
    counts)."""
    kern = tmp_path / "site" / only_here / "kern.py"
    kern.write_text(IMPORTS_FILE.format(module="triton"))
    v = managed.version
    done = run_cli("dump", f"{only_here}.kern:double@triton={v}", *SIGNATURE, "--stage", "ttir",
                   env={toolchains.OFFLINE_ENV: "1"})
    assert done.exit_code == 0, done.output
    assert f"triton={v}" in done.output and f'loc("{kern}"' in done.output


def test_a_registered_environment_is_never_changed(toolchain, only_here, tmp_path):
    record = toolchains.root() / f"{toolchain.version}.json"
    saved = record.read_text()
    try:
        registered = toolchains.register(toolchain.version, toolchain.python)  # the same python, as yours
        path = imports_file(tmp_path, only_here)
        assert_one_line_error(run_cli("dump", f"{path}:double@triton={registered.version}", *SIGNATURE, "--stage",
                                      "ttir"), 2, "registered environment, which ttinspect does not change",
                              f"{registered.python} -m pip install '{ONLY_HERE}==1.0'")
        assert_error_last_line(run_cli("toolchains", "--add", registered.version, "--with", ONLY_HERE), 2,
                               "registered environment")
    finally:
        record.write_text(saved)
    assert not _has(toolchain, only_here)


@pytest.mark.parametrize("with_deps, alone, installed", [
    ("conflict", None, True),          # its serving stack's pins cannot be met: the package alone, as here
    (None, "unused", True),            # its requirements install: nothing more to do
    ("conflict", "no such file", False),  # neither: the first reason, in one line
])
def test_a_package_whose_requirements_conflict_is_installed_alone(monkeypatch, tmp_path, capsys, with_deps, alone,
                                                                   installed):
    """A library installed here with --no-deps (its declared requirements unmet here too) goes into another
    Triton's toolchain the same way when its requirements cannot be installed beside that Triton."""
    calls = []

    def installer(python, requirements, constraints, log, *, no_deps=False):
        calls.append(no_deps)
        return alone if no_deps else with_deps

    toolchain = toolchains.Toolchain("3.8.0", sys.executable, managed=True)
    monkeypatch.setattr(packages, "_run_installer", installer)
    monkeypatch.setattr(toolchains, "triton_of", lambda python: "3.8.0")
    monkeypatch.setattr(toolchains, "find", lambda version: toolchain)
    monkeypatch.setattr(toolchains, "write", lambda updated: None)
    monkeypatch.setattr(toolchains, "root", lambda: tmp_path)
    if installed:
        updated = packages.install(toolchain, ["lib==1.0"], files_only_on_conflict=True)
        assert updated.packages == ("lib==1.0",)
        assert calls == ([False, True] if with_deps else [False])
        assert ("installed without them (--no-deps)" in capsys.readouterr().err) == bool(with_deps)
    else:
        with pytest.raises(UsageError, match=r"lib==1.0: cannot be installed in the Triton 3.8.0 toolchain "
                                             r"\(conflict\)"):
            packages.install(toolchain, ["lib==1.0"], files_only_on_conflict=True)

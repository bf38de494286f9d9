"""A kernel whose `@triton.jit` def sits inside a function (a factory per config or GPU) is captured and then
compiled offline from its def (refs/nested_kernels.py); one that reads its factory's locals is unknown, in one
line naming its line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cli_helpers import assert_one_line_error, run_cli, run_process

from ttinspect.refs.nested_kernels import nested_defs

DATA = Path(__file__).parent / "data" / "capture_as"


@pytest.fixture(scope="module")
def captured(tmp_path_factory) -> Path:
    pytest.importorskip("torch")
    folder = tmp_path_factory.mktemp("nested")
    (folder / "prog.py").write_text((DATA / "factory_kernels.py").read_text())
    done = run_process("capture", "--as", "sm_90", "-o", "run.ttcap", "--", sys.executable, "prog.py", cwd=folder)
    assert done.returncode == 0 and "ran" in done.stdout, done.stderr
    return folder


@pytest.mark.slow  # a capture (a process running the program) and compiles
@pytest.mark.parametrize("which, block", [("1", 1024), ("2", 2048)])
def test_a_kernel_made_by_a_factory_compiles_from_its_def(captured, monkeypatch, which, block):
    monkeypatch.chdir(captured)
    out = run_cli("report", f"run.ttcap:factory_copy#{which}", "--json")
    assert out.exit_code == 0, out.output
    import json

    data = json.loads(out.output)
    assert data["config"]["BLOCK"] == block
    assert data["target"].startswith("sm_90")


@pytest.mark.slow
def test_a_kernel_reading_its_factorys_locals_is_unknown_in_one_line(captured, monkeypatch):
    monkeypatch.chdir(captured)
    out = run_cli("report", "run.ttcap:scaled")
    assert_one_line_error(out, 2, "prog.py:25", "reads scale", "unknown")


@pytest.mark.parametrize("source, expected", [
    ("def f():\n    def k(x):\n        pass\n", [("k", "f", 2)]),
    ("def k(x):\n    pass\n", []),  # top level: looked up as a module attribute, not here
    ("class C:\n    def k(self):\n        pass\n", []),  # a method is not made by a function
    ("def f():\n    def k(): pass\ndef g():\n    def k(): pass\n", [("k", "f", 2), ("k", "g", 4)]),
])
def test_nested_defs_are_found_by_name(source, expected):
    assert [(n.name, enclosing, n.lineno) for n, enclosing in nested_defs(source, "k")] == expected

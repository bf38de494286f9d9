"""A kernel defined in the captured program's own script (its module `__main__`, as Triton's tutorials write
them): every command loads the script for its definitions, not to run the program again (refs/program_script.py)
— its top-level launches, prints, loops and checks are left out or not run, its configs and constants kept."""

from __future__ import annotations

import ast
import json
import sys
import textwrap
from pathlib import Path

import pytest
from cli_helpers import run_cli, run_cli_ok, run_process

from ttinspect.refs.program_script import definitions

# A tutorial-style program: the device asked at import, an autotune config list made by a function, a host
# wrapper that launches, and top-level statements that run the program (print, a loop, a check).
SCRIPT = textwrap.dedent('''\
    """Vector add, tutorial style."""
    import torch
    import triton
    import triton.language as tl

    DEVICE = "cpu"
    BLOCKS = [64]  # one config: under the interpreter the autotuner has nothing to time


    def configs():
        return [triton.Config({"BLOCK": b}) for b in BLOCKS]


    @triton.autotune(configs=configs(), key=["n"])
    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


    def add(x, y):
        out = torch.empty_like(x)
        add_kernel[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, y, out, x.numel())
        return out


    torch.manual_seed(0)
    x = torch.rand(1000, device=DEVICE)
    y = torch.rand(1000, device=DEVICE)
    output = add(x, y)
    print("max difference", torch.max(torch.abs(output - (x + y))))
    for _ in range(2):
        add(x, y)
    if __name__ == "__main__":
        torch.testing.assert_close(output, x + y)
''')


@pytest.fixture(scope="module")
def captured(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("script")
    (folder / "vector_add.py").write_text(SCRIPT)
    done = run_process("capture", "-o", "run.ttcap", "--", sys.executable, "vector_add.py", cwd=folder,
                       env={"TRITON_INTERPRET": "1"}, check=True)
    assert "max difference" in done.stdout  # the program ran, under capture
    return folder / "run.ttcap"


def test_the_definitions_are_kept_and_the_actions_left_out(tmp_path):
    (tmp_path / "vector_add.py").write_text(SCRIPT)
    kept = definitions(tmp_path / "vector_add.py").body
    kinds = [type(node).__name__ for node in kept]
    assert kinds == ["Expr", "Import", "Import", "Import", "Assign", "Assign", "FunctionDef", "FunctionDef",
                     "FunctionDef", "Assign", "Assign", "Assign", "If"]
    assert ast.unparse(kept[-1]).endswith("pass")  # the __main__ block's check left out
    assert kept[7].lineno == 16  # the kernel's def keeps its line: its source and locations are the file's


@pytest.mark.parametrize("arch", ["sm_90", "gfx942"])
def test_a_kernel_of_the_programs_script_reports_without_running_the_program(captured, arch):
    result = run_cli("report", f"{captured}:add_kernel", "--arch", arch, "--json")
    assert result.exit_code == 0, result.output
    assert "max difference" not in result.output  # the program's print did not run
    report = json.loads(result.stdout)
    assert report["config"]["BLOCK"] == 64 and report["label"].endswith("run.ttcap:add_kernel")


def test_sweep_of_a_scripts_kernel(captured):
    points = json.loads(run_cli_ok("sweep", f"{captured}:add_kernel", "--grid", "num_warps=1,2", "--arch", "sm_90",
                                   "--json"))
    assert points["failed"] == 0 and len(points["rows"]) == 2


def test_a_replay_of_a_scripts_kernel_does_not_run_the_program(captured, tmp_path):
    """repro's script (and bench's in-process replay, through the same loader) load the script's definitions."""
    import os
    import subprocess

    run_cli_ok("repro", f"{captured}:add_kernel", "-o", tmp_path / "repro.py")
    assert "PROGRAM_SCRIPT = True" in (tmp_path / "repro.py").read_text()
    done = subprocess.run([sys.executable, str(tmp_path / "repro.py")], env={**os.environ, "TRITON_INTERPRET": "1"},
                          cwd=captured.parent, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "add_kernel grid=(16, 1, 1): ran under the interpreter\n"  # no "max difference"

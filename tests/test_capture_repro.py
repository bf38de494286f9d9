"""`ttinspect repro FILE.ttcap:KERNEL[#N] -o repro.py`: the written script replays the captured launch (run here
under TRITON_INTERPRET=1 on CPU torch, from a synthetic capture and from a real interpreter capture of a
program written for the test); a capture lacking what a replay needs is one line naming it; -o is never
replaced without --force."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from capture_programs import capture_interpreted
from cli_helpers import assert_one_line_error, run_cli, run_cli_ok

sys.path.insert(0, str(Path(__file__).parent / "data" / "captures"))
from make_example import write_example  # noqa: E402  (the synthetic capture's writer, beside its data)

INTERPRET = {"TRITON_INTERPRET": "1"}

# A program of the test's own: a kernel with a strided 2-D float tensor, an int tensor, a float scalar, an
# int scalar and a constexpr, launched on a 2-D grid.
PROGRAM = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def gather_rows(src_ptr, idx_ptr, out_ptr, scale, n_cols, stride_row, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
        mask = cols < n_cols
        pick = tl.load(idx_ptr + row)
        values = tl.load(src_ptr + pick * stride_row + cols * 2, mask=mask)
        tl.store(out_ptr + row * n_cols + cols, values * scale, mask=mask)

    src = torch.randn(16, 40)[:, ::2]  # strides (40, 2): a replay must keep them
    idx = torch.randint(0, 16, (8,), dtype=torch.int64)
    out = torch.empty(8, 20)
    gather_rows[(8, 2)](src, idx, out, 0.5, 20, src.stride(0), BLOCK=16)
""")


def run_script(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(path)], env={**os.environ, **INTERPRET}, cwd=path.parent,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def example(tmp_path) -> Path:
    return write_example(tmp_path)


@pytest.mark.parametrize("ref, grid", [("scale_add#1", "(1, 1, 1)"), ("scale_add#2", "(4, 1, 1)")])
def test_a_synthetic_capture_replays_under_the_interpreter(tmp_path, example, ref, grid):
    run_cli_ok("repro", f"{example}:{ref}", "-o", tmp_path / "repro.py")
    text = (tmp_path / "repro.py").read_text()
    assert "import ttinspect" not in text and "from ttinspect" not in text  # standalone
    done = run_script(tmp_path / "repro.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"scale_add grid={grid}: ran under the interpreter\n"


def test_a_real_interpreter_capture_replays(tmp_path):
    capture = capture_interpreted(tmp_path, PROGRAM)
    run_cli_ok("repro", f"{capture}:gather_rows", "-o", tmp_path / "repro.py")
    text = (tmp_path / "repro.py").read_text()
    assert "src_ptr=fresh([16, 20], [40, 2], 'float32', DEVICE)," in text
    assert "idx_ptr=fresh([8], [1], 'int64', DEVICE)," in text and "scale=0.5," in text
    assert "BLOCK=16," in text and "GRID = (8, 2, 1)" in text
    done = run_script(tmp_path / "repro.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "gather_rows grid=(8, 2, 1): ran under the interpreter\n"


def edit_launches(capture: Path, change) -> None:
    """Apply `change` to every launches record of scale_add's first compile (in place)."""
    lines = capture.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    first = next(r["id"] for r in records if r.get("type") == "compile" and r["name"] == "scale_add")
    kept = []
    for record in records:
        if record.get("type") == "launches" and record["compile"] == first:
            record = change(record)
        if record is not None:
            kept.append(json.dumps(record))
    capture.write_text("\n".join(kept) + "\n")


@pytest.mark.parametrize("change, missing", [
    (lambda r: None, "no launch record"),
    (lambda r: {**r, "grids": [], "pairs": []}, "no grid"),
    (lambda r: {**r, "args": [], "pairs": []}, "no argument summary in its launch record"),
    (lambda r: {**r, "args": [{k: v for k, v in r["args"][0].items() if k != "y_ptr"}]},
     "no argument summary for 'y_ptr'"),
    (lambda r: {**r, "args": [{**r["args"][0], "x_ptr": {"type": "Buffer"}}]}, "no tensor summary for x_ptr"),
])
def test_what_a_replay_lacks_is_one_line(tmp_path, example, change, missing):
    edit_launches(example, change)
    result = run_cli("repro", f"{example}:scale_add#1", "-o", tmp_path / "repro.py")
    assert_one_line_error(result, 2, missing, "scale_add#1")
    assert not (tmp_path / "repro.py").exists()


def test_output_is_replaced_only_with_force(tmp_path, example):
    out = tmp_path / "repro.py"
    out.write_text("mine\n")
    assert_one_line_error(run_cli("repro", f"{example}:scale_add#2", "-o", out), 2, "already exists", "--force")
    assert out.read_text() == "mine\n"
    run_cli_ok("repro", f"{example}:scale_add#2", "-o", out, "--force")
    assert "GRID = (4, 1, 1)" in out.read_text()


def test_an_ambiguous_kernel_is_one_line(tmp_path, example):
    result = run_cli("repro", f"{example}:scale_add", "-o", tmp_path / "repro.py")
    assert_one_line_error(result, 2, "scale_add#1 to scale_add#2")


# A constexpr between runtime arguments (as Liger's RMSNorm backward has X_dtype): every argument is passed by
# name, so none is given twice.
CONSTEXPR_FIRST = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def scaled_copy(x_ptr, X_DTYPE: tl.constexpr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, (tl.load(x_ptr + offs, mask=mask) * 2).to(X_DTYPE), mask=mask)

    x = torch.randn(100)
    y = torch.empty(100)
    scaled_copy[(4,)](x, tl.float32, y, 100, BLOCK=32)
""")


def test_a_constexpr_between_runtime_arguments_replays_and_takes_changes(tmp_path):
    capture = capture_interpreted(tmp_path, CONSTEXPR_FIRST)
    run_cli_ok("repro", f"{capture}:scaled_copy:BLOCK=64,num_warps=2", "-o", tmp_path / "repro.py")
    text = (tmp_path / "repro.py").read_text()
    assert "X_DTYPE=tl.float32," in text and "BLOCK=64," in text and "num_warps=2," in text
    done = run_script(tmp_path / "repro.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "scaled_copy grid=(4, 1, 1): ran under the interpreter\n"


def test_a_change_that_is_neither_a_constexpr_nor_an_option_is_one_line(tmp_path, example):
    result = run_cli("repro", f"{example}:scale_add#1:BLOCKK=4", "-o", tmp_path / "repro.py")
    assert_one_line_error(result, 2, "BLOCKK is not a constexpr or launch option of scale_add", "settable:")

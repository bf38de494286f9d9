"""A file inside a package named like another one already imported (ttinspect's own `kernels`, a library's
`ops/`): each loads as its own package — its relative and absolute imports of itself find its own modules —
and the name is left to what held it (refs/package_names.py)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from cli_helpers import run_cli_ok
from ttinspect import inspect

REPO = Path(__file__).resolve().parent.parent

KERNEL = """
import triton
import triton.language as tl
from .consts import BLOCK as DEFAULT_BLOCK
from kernels.consts import BLOCK as SAME_BLOCK  # its own package, by its absolute name

assert SAME_BLOCK == DEFAULT_BLOCK


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr = DEFAULT_BLOCK):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
"""
ARGS = {"x_ptr": "*fp32", "n": 4096}


def kernels_package(root: Path, block: int) -> str:
    """root/kernels/x.py, its BLOCK from root/kernels/consts.py; returns the kernel's reference."""
    (root / "kernels").mkdir(parents=True)
    (root / "kernels" / "__init__.py").write_text("")
    (root / "kernels" / "consts.py").write_text(f"BLOCK = {block}\n")
    (root / "kernels" / "x.py").write_text(KERNEL)
    return f"{root}/kernels/x.py:k"


@pytest.fixture
def own_kernels_imported(monkeypatch):
    """ttinspect's own `kernels` package (the repository's kernels/) imported as `kernels`, as a process run
    from the checkout holds it."""
    spec = importlib.util.spec_from_file_location("kernels", REPO / "kernels" / "__init__.py",
                                                  submodule_search_locations=[str(REPO / "kernels")])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "kernels", module)
    spec.loader.exec_module(module)
    return module


def test_two_kernels_packages_and_ttinspects_own_in_one_process(tmp_path, own_kernels_imported):
    a = kernels_package(tmp_path / "a", 64)
    b = kernels_package(tmp_path / "b", 128)
    own = f"{REPO}/kernels/elementwise.py:add_kernel"
    own_args = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elems": 4096}
    for ref, block in ((a, 64), (b, 128), (a, 64)):
        report = inspect(ref, "sm_90", args=ARGS)
        assert report.config["BLOCK"] == block
        assert report.build.source_file == ref.rpartition(":")[0]
    assert inspect(own, "sm_90", args=own_args, config={"BLOCK_SIZE": 256}).config["BLOCK_SIZE"] == 256
    assert inspect(b, "sm_90", args={**ARGS, "n": 8192}).config["BLOCK"] == 128  # b again, after the own one
    assert sys.modules["kernels"] is own_kernels_imported, "the process's own `kernels` was taken"


def test_diff_of_two_checkouts_of_one_package(tmp_path, own_kernels_imported):
    a = kernels_package(tmp_path / "a", 64)
    b = kernels_package(tmp_path / "b", 128)
    out = json.loads(run_cli_ok("diff", a, b, "--arch", "sm_90", "--arg", "x_ptr=*fp32", "--arg", "n=4096",
                                "--json"))
    text = json.dumps(out)
    assert "BLOCK=64" in text and "BLOCK=128" in text
    assert sys.modules["kernels"] is own_kernels_imported

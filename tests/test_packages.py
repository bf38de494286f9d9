"""Kernels where they live: module references (`pkg.mod:kernel`) and files inside packages (relative imports
work, the package's root goes on sys.path), a package whose __init__ fails off the GPU machine, and an error
raised deep inside a package's own imports named where it was raised."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from cli_helpers import assert_one_line_error, run_cli, run_cli_ok, run_process
from ttinspect.errors import EXIT_USAGE

SIGNATURE = "*fp32, *fp32, i32, 128"
_names = itertools.count()

KERNEL = """
import triton
import triton.language as tl
from .utils import twice
from {top}.ops.utils import twice as twice_again{extra}


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, twice_again(twice(tl.load(x_ptr + offs, mask=mask))), mask=mask)
"""

UTILS = """
import triton


@triton.jit
def twice(x):
    return x * 2
"""


def make_package(root: Path, *, init: str = "", extra: str = "") -> str:
    """root/<top>/ops/copy.py importing its sibling relatively and by absolute name; returns <top>."""
    top = f"kpkg{next(_names)}_{abs(hash(str(root))) % 10**6}"
    ops = root / top / "ops"
    ops.mkdir(parents=True)
    (root / top / "__init__.py").write_text(init)
    (ops / "__init__.py").write_text("")
    (ops / "utils.py").write_text(UTILS)
    (ops / "copy.py").write_text(KERNEL.format(top=top, extra=extra))
    return top


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("form", ["module", "file"])
def test_a_package_module_reports_with_its_relative_imports(in_tmp, form):
    top = make_package(in_tmp)
    ref = f"{top}.ops.copy:copy_kernel" if form == "module" else f"{in_tmp}/{top}/ops/copy.py:copy_kernel"
    out = run_cli_ok("report", ref, "--signature", SIGNATURE, "--arch", "sm_90", "--json")
    report = json.loads(out)
    assert report["label"] == f"{top}.ops.copy:copy_kernel"


def test_a_single_module_in_the_current_directory(in_tmp):
    name = f"loose_mod_{next(_names)}"
    (in_tmp / f"{name}.py").write_text(KERNEL.replace("from .utils import twice\n", "")
                                       .replace("from {top}.ops.utils import twice as twice_again{extra}\n", "")
                                       + UTILS.replace("import triton\n", "") + "\ntwice_again = twice\n")
    report = json.loads(run_cli_ok("report", f"{name}:copy_kernel", "--signature", SIGNATURE, "--json"))
    assert report["label"] == f"{name}:copy_kernel"


def test_a_variant_stays_a_variant():
    from ttinspect.refs.kinds import kind_of

    assert kind_of("opt:num_stages=3@sm_90") == "variant"
    assert kind_of("opt") == "variant"
    assert kind_of("json:loads") == "module"  # a module Python finds, and a plain name after it
    assert kind_of("liger_kernel.ops.rms_norm:_rms_norm_forward_kernel") == "module"


def test_a_failing_package_init_does_not_block_its_kernel(in_tmp):
    top = make_package(in_tmp, init="import torch\ntorch.cuda.init()\nraise RuntimeError('no engine without a GPU')\n")
    result = run_cli("report", f"{top}.ops.copy:copy_kernel", "--signature", SIGNATURE, "--arch", "sm_90")
    assert result.exit_code == 0, result.output
    warning = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warning) == 1, result.stderr
    assert f"{top}/__init__.py raised" in warning[0] and "without running" in warning[0]


def test_an_error_deep_in_the_package_names_where_it_was_raised(in_tmp):
    top = make_package(in_tmp, extra="\nfrom . import tables")
    (in_tmp / top / "ops" / "tables.py").write_text("\n\nraise ValueError('no config for this device')\n")
    line = assert_one_line_error(run_cli("report", f"{top}.ops.copy:copy_kernel", "--signature", SIGNATURE),
                                 EXIT_USAGE, "ValueError: no config for this device", "TTINSPECT_DEBUG=1")
    assert f"{top}/ops/tables.py:3" in line


def test_debug_shows_the_whole_traceback(in_tmp):
    top = make_package(in_tmp, extra="\nfrom . import tables")
    (in_tmp / top / "ops" / "tables.py").write_text("raise ValueError('boom')\n")
    done = subprocess_report(in_tmp, f"{top}.ops.copy:copy_kernel", env={"TTINSPECT_DEBUG": "1"})
    assert done.returncode == EXIT_USAGE
    assert "tables.py\", line 1" in done.stderr and done.stderr.rstrip().splitlines()[-1].startswith("ttinspect: error")


def subprocess_report(cwd: Path, ref: str, env=None):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "ttinspect", "report", ref, "--signature", SIGNATURE],
                          cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("ref, fragment", [
    ("no_such_pkg_xyz.ops:k", "no module named 'no_such_pkg_xyz'"),
    ("json.nothing_here:k", "no module 'nothing_here' in package 'json'"),
])
def test_a_module_that_is_not_there_is_one_line(ref, fragment):
    assert_one_line_error(run_cli("report", ref, "--signature", SIGNATURE), EXIT_USAGE, fragment)


def test_the_warm_path_runs_nothing_and_sees_a_sibling_change(in_tmp):
    """A second report imports neither the package nor triton; editing a sibling module of the package
    (not the kernel's file) makes the next one cold again."""
    top = make_package(in_tmp)
    ref = f"{top}.ops.copy:copy_kernel"
    marker = in_tmp / "imported.txt"
    utils = in_tmp / top / "ops" / "utils.py"
    utils.write_text(f"open({str(marker)!r}, 'a').write('x')\n" + UTILS)
    run_process("report", ref, "--signature", SIGNATURE, cwd=in_tmp, check=True)
    assert marker.read_text() == "x"
    run_process("report", ref, "--signature", SIGNATURE, cwd=in_tmp, check=True)
    assert marker.read_text() == "x", "the warm path ran the package"
    utils.write_text(utils.read_text() + "\n# edited\n")
    run_process("report", ref, "--signature", SIGNATURE, cwd=in_tmp, check=True)
    assert marker.read_text() == "xx"


def test_list_takes_a_module_and_names_where_it_lives(in_tmp):
    top = make_package(in_tmp)
    listing = json.loads(run_cli_ok("list", f"{top}.ops.copy", "--json"))
    assert listing["module"] == f"{top}.ops.copy" and listing["file"].endswith(f"{top}/ops/copy.py")
    assert listing["suggested"] == "copy_kernel"  # not the helpers it imported
    text = run_cli_ok("list", f"{in_tmp}/{top}/ops/copy.py", "--width", "200")
    assert f"kernels in {top}.ops.copy (from " in text and f"report {top}.ops.copy:copy_kernel" in text


def test_the_report_says_which_copy_of_a_module_it_read(in_tmp):
    top = make_package(in_tmp)
    text = run_cli_ok("report", f"{top}.ops.copy:copy_kernel", "--signature", SIGNATURE, "--arch", "sm_90",
                      "--width", "300")
    assert f"{top}.ops.copy from {in_tmp}/{top}/ops/copy.py" in text.splitlines()[1]


@pytest.mark.parametrize("init", ["from . import _C  # a compiled extension, not built here\n",
                                  "import a_plugin_nobody_has\n"])
def test_an_init_missing_its_extension_or_a_plugin_does_not_block_the_kernel(in_tmp, init):
    top = make_package(in_tmp, init=init)
    result = run_cli("report", f"{top}.ops.copy:copy_kernel", "--signature", SIGNATURE, "--arch", "sm_90")
    assert result.exit_code == 0, result.output
    assert "Error" in result.stderr and "without running" in result.stderr


TORCH_OPS = """
import torch
import torch._decomp
from torch.library import triton_op, wrap_triton
from .copy import copy_kernel

lib = torch.library.Library("{top}", "FRAGMENT")
lib.define("twice(Tensor a) -> Tensor")


@torch.library.impl(lib, "twice", "CPU")
def twice_cpu(a):
    return a * 2


@torch.library.custom_op("{top}::thrice", mutates_args=())
def thrice(a: torch.Tensor) -> torch.Tensor:
    return a * 3


@torch.library.register_fake("{top}::thrice")
def _(a):
    return torch.empty_like(a)


@torch._decomp.register_decomposition([torch.ops.{top}.twice])
def twice_decomposed(a):
    return a + a


@triton_op("{top}::copy", mutates_args={{}})
def copy(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    wrap_triton(copy_kernel)[(1,)](x, y, x.numel(), BLOCK=128)
    return y
{extra}"""


@pytest.mark.parametrize("second", ["sm_100", "gfx942"])
def test_a_module_registering_torch_ops_is_imported_for_a_second_target(in_tmp, second):
    """Each target imports the code again in one process; torch keeps operators process-wide, so the
    second import's registrations of the same lines would raise — as a fresh process would not."""
    pytest.importorskip("torch")
    top = make_package(in_tmp)
    (in_tmp / top / "ops" / "registered.py").write_text(TORCH_OPS.format(top=top, extra=""))
    ref = f"{top}.ops.registered:copy_kernel"
    result = run_cli("diff", f"{ref}@sm_90", f"{ref}@{second}", "--signature", SIGNATURE)
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr and "Overriding" not in result.stderr, result.stderr


def test_a_module_that_registers_one_op_twice_still_fails_as_it_would_alone(in_tmp):
    pytest.importorskip("torch")
    top = make_package(in_tmp)
    again = '\nlib.define("twice(Tensor a) -> Tensor")\n'
    (in_tmp / top / "ops" / "registered.py").write_text(TORCH_OPS.format(top=top, extra=again))
    result = run_cli("report", f"{top}.ops.registered:copy_kernel", "--signature", SIGNATURE, "--arch", "sm_90")
    assert_one_line_error(result, EXIT_USAGE, "registered.py:", "multiple times")

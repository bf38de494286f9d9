"""A launch's values through `@triton.heuristics` as Triton's `Heuristics.run` takes them, and pointers given
by type and shape (`--arg 'dOut=*fp32[16384,4096]'`): a value a heuristic reads is given to it; one it replaces
without reading is refused, naming the override; one it reads and changes is said (a warning, the build's
note); a missing one is asked for with --set and the kind of value the kernel uses (a flag: True); a pointer's
shape answers numel(), shape, size() and stride() as a contiguous tensor of that shape does (issue 39)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from cli_helpers import assert_one_line_error, run_cli, run_cli_ok

from ttinspect.errors import UsageError
from ttinspect.kernel.argument_types import Pointer, entry_text
from ttinspect.kernel.arguments import parse_entry, parse_signature
from ttinspect.kernel.constexpr_uses import flags
from ttinspect.refs.launch import plan
from ttinspect.refs.type_only_arguments import stand_ins

KERNELS = Path(__file__).parent / "data" / "heuristic_args" / "heuristic_kernels.py"
PASSTHROUGH = ["--arch", "sm_90", "--arg", "x=*fp32", "--arg", "y=*fp32", "--arg", "n=4096", "--set", "BLOCK=1024"]
READS_SIZE = ["--arch", "sm_90", "--arg", "x=*fp32", "--arg", "n=4096", "--set", "BLOCK=1024"]


@pytest.fixture(scope="module")
def kernels():
    pytest.importorskip("triton")
    spec = importlib.util.spec_from_file_location("heuristic_kernels_under_test", KERNELS)
    module = importlib.util.module_from_spec(spec)
    previous, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no __pycache__ beside the test data
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = previous
    return module


def _triton_launch(kernel, positional: dict, keywords: dict) -> dict:
    """The constexprs Triton's own Heuristics.run passes on to the JIT function for this launch."""
    from triton.runtime.autotuner import Heuristics

    class Inner:  # what Heuristics.run calls: the JIT function, here only recording the call
        def run(self, *args, **kwargs):
            return kwargs

    return Heuristics(Inner(), kernel.arg_names, kernel.values).run(*positional.values(), **keywords)


@pytest.mark.parametrize("name, positional, keywords", [
    ("passthrough", {"x": Pointer("fp32"), "y": Pointer("fp32"), "n": 4096}, {"BLOCK": 1024, "REQUIRES_GRAD": True}),
    ("passthrough", {"x": Pointer("fp32"), "y": Pointer("fp32"), "n": 4000}, {"BLOCK": 1024, "REQUIRES_GRAD": False}),
    ("passthrough", {"x": Pointer("fp32"), "y": Pointer("fp32"), "n": 4096},
     {"BLOCK": 1024, "REQUIRES_GRAD": True, "EVEN": True}),  # the value the heuristic computes, given too
    ("clamps_its_own", {"x": Pointer("fp32"), "n": 64}, {"BLOCK": 1024}),  # read, then replaced by 64
])
def test_heuristic_values_are_tritons_own(kernels, name, positional, keywords):
    kernel = getattr(kernels, name)
    expected = _triton_launch(kernel, positional, keywords)
    [launch] = plan(kernel, name, positional, keywords)
    assert {k: launch.config[k] for k in expected} == expected


@pytest.mark.parametrize("shape", [(16384, 4096), (1,), (), (3, 5, 7)])
def test_a_shape_answers_as_a_contiguous_tensor_does(kernels, shape):
    torch = pytest.importorskip("torch")
    tensor = torch.empty(shape, dtype=torch.float32)
    expected = _triton_launch(kernels.reads_size, {"dOut": tensor, "x": tensor, "n": 4096}, {"BLOCK": 1024})
    [launch] = plan(kernels.reads_size, "reads_size", {"dOut": Pointer("fp32", shape=shape), "x": Pointer("fp32"),
                                                        "n": 4096}, {"BLOCK": 1024})
    assert {k: launch.config[k] for k in ("ITEM_DO", "ROWS", "ROW_STRIDE")} == \
        {k: expected[k] for k in ("ITEM_DO", "ROWS", "ROW_STRIDE")}
    pointer = stand_ins({"t": Pointer("fp32", shape=shape)})["t"]
    assert (pointer.numel(), tuple(pointer.shape), pointer.size(), pointer.stride(), pointer.dim(), pointer.ndim) == \
        (tensor.numel(), tuple(tensor.shape), tensor.size(), tensor.stride(), tensor.dim(), tensor.ndim)


@pytest.mark.parametrize("text, pointer", [
    ("*fp32[16384,4096]", Pointer("fp32", shape=(16384, 4096))),
    ("*fp16[ 8 , 4 ]:16", Pointer("fp16", shape=(8, 4))),
    ("*fp32[]", Pointer("fp32", shape=())),
    ("*bf16", Pointer("bf16")),
])
def test_a_pointer_takes_a_shape_in_arg_text(text, pointer):
    assert parse_entry(text, where="--arg p", pointer_aligned_by_default=True) == pointer
    assert parse_entry(entry_text(pointer), where="--arg p", pointer_aligned_by_default=True) == pointer


def test_a_signature_splits_around_a_shape():
    assert parse_signature("*fp32[4, 8], *fp16:16, 4") == [Pointer("fp32", aligned=False, shape=(4, 8)),
                                                           Pointer("fp16"), 4]


@pytest.mark.parametrize("text, fragment", [
    ("*fp32[a]", "is not a list of sizes"), ("*fp32[-1]", "is not a list of sizes"),
    ("*fp33[4]", "unknown pointer type '*fp33'"), ("*fp32[4]x", "is not a pointer"),
])
def test_a_bad_shape_is_one_line(text, fragment):
    with pytest.raises(UsageError, match=None) as raised:
        parse_entry(text, where="--arg p")
    assert fragment in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize("source, expected", [
    ("def k(A, B, C):\n    if A:\n        pass\n    x = B + 1\n    y = not C\n", {"A", "C"}),
    ("def k(A, B):\n    z = A and B\n    w = B * 2\n", {"A"}),
    ("def k(A):\n    pass\n", set()),  # not read: not called a flag
])
def test_flags_are_constexprs_only_tested_for_truth(source, expected):
    assert flags(source, ["A", "B", "C"]) == expected


@pytest.mark.parametrize("given", [["--arg", "REQUIRES_GRAD=True"], ["--set", "REQUIRES_GRAD=True"],
                                   ["--set", "REQUIRES_GRAD=true", "--set", "EVEN=True"]])
def test_a_passed_through_value_is_taken_both_ways(given):
    report = run_cli_ok("report", f"{KERNELS}:passthrough", *PASSTHROUGH, *given)
    assert "REQUIRES_GRAD=yes" in report and "EVEN=yes" in report


def test_a_missing_pass_through_flag_is_asked_for_with_set():
    line = assert_one_line_error(run_cli("report", f"{KERNELS}:passthrough", *PASSTHROUGH), 2,
                                 "value for REQUIRES_GRAD could not be computed", "REQUIRES_GRAD was not given",
                                 "--set REQUIRES_GRAD=True", "heuristic_kernels.py:10")
    assert "--arg REQUIRES_GRAD" not in line and "=4096" not in line


def test_a_value_replaced_without_being_read_is_refused_as_overridden():
    assert_one_line_error(run_cli("report", f"{KERNELS}:passthrough", *PASSTHROUGH, "--set", "REQUIRES_GRAD=True",
                                  "--set", "EVEN=False"), 2,
                          "EVEN: computed by passthrough's @triton.heuristics (from BLOCK, n: EVEN=True here)",
                          "overrides the EVEN=False given")


def test_a_value_read_and_changed_is_said():
    result = run_cli("report", f"{KERNELS}:clamps_its_own", "--arch", "sm_90", "--arg", "x=*fp32", "--arg", "n=64",
                     "--set", "BLOCK=1024")
    assert result.exit_code == 0, result.output
    assert "BLOCK=64" in result.output
    assert "warning: " in result.stderr and "BLOCK=1024 was given" in result.stderr and "BLOCK=64" in result.stderr


@pytest.mark.parametrize("shape, item", [("[16384,4096]", "no"), ("[]", "yes"), ("[1]", "yes")])
def test_a_shape_on_the_command_line_reaches_the_heuristic(shape, item):
    report = run_cli_ok("report", f"{KERNELS}:reads_size", *READS_SIZE, "--arg", f"dOut=*fp32{shape}")
    assert f"ITEM_DO={item}" in report


def test_a_pointer_without_a_shape_names_the_syntax():
    line = assert_one_line_error(run_cli("report", f"{KERNELS}:reads_size", *READS_SIZE, "--arg", "dOut=*fp32"), 2,
                                 "value for ITEM_DO could not be computed", "dOut was given only as *fp32:16",
                                 "the code read .numel", "--arg 'dOut=*fp32[", "Pointer('fp32', shape=(")
    assert "Traceback" not in line


def test_a_helion_kernel_takes_a_tensor_by_its_shape_in_arg():
    pytest.importorskip("helion")
    helion_file = Path(__file__).parent / "data" / "helion" / "helion_kernels.py"
    report = run_cli_ok("report", f"{helion_file}:add", "--arch", "sm_90", "--arg", "x=*fp16[1024,1024]",
                        "--arg", "y=*fp16[1024,1024]")
    assert "helion_kernels.py:add" in report
    assert_one_line_error(run_cli("report", f"{helion_file}:add", "--arch", "sm_90", "--arg", "x=*fp16",
                                  "--arg", "y=*fp16[1024,1024]"), 2, "--arg x: a Helion kernel needs a tensor's shape",
                          "--arg 'x=*fp16[1024,1024]'")

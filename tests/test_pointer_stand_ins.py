"""A pointer given by type (`*fp16:16` in --signature, `Pointer("fp16")` in the API) answers a heuristic or a
pruner what a launch's tensor would — element_size(), dtype (a torch dtype), data_ptr() aligned as the
specialization says — and refuses anything else in one line that names the argument and what was read."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cli_helpers import assert_one_line_error, run_cli

from ttinspect.kernel.argument_types import Pointer, Scalar
from ttinspect.refs.resolver import RefOptions, resolve
from ttinspect.refs.type_only_arguments import KnownOnlyByType, reads_an_unknown, stand_ins, what_it_read

HEURISTICS = Path(__file__).parent / "data" / "false_alarms" / "pointer_heuristics.py"


@pytest.mark.parametrize("pointer, size, aligned", [
    (Pointer("fp16"), 2, True), (Pointer("fp32", aligned=False), 4, False), (Pointer("bf16"), 2, True),
    (Pointer("i8", aligned=False), 1, False), (Pointer("fp8e4nv"), 1, True), (Pointer("fp64", aligned=False), 8, False),
])
def test_a_pointer_answers_as_a_launch_tensor(pointer, size, aligned):
    x = stand_ins({"x": pointer})["x"]
    assert x.element_size() == size
    assert (x.data_ptr() % 16 == 0) is aligned and x.data_ptr() % size == 0


def test_dtype_is_a_torch_dtype():
    torch = pytest.importorskip("torch")
    assert stand_ins({"x": Pointer("fp16")})["x"].dtype == torch.float16
    assert stand_ins({"x": Pointer("fp8e5")})["x"].dtype == torch.float8_e5m2


def test_dtype_without_torch_is_refused_naming_the_argument(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch then raises ImportError
    x = stand_ins({"a_ptr": Pointer("fp16")})["a_ptr"]
    with pytest.raises(KnownOnlyByType, match="a_ptr was given only as \\*fp16:16 .*torch is not importable"):
        x.dtype  # noqa: B018 — the read is the test


@pytest.mark.parametrize("read, asked", [
    (lambda x: x.shape, ".shape"), (lambda x: x.stride(0), ".stride"), (lambda x: x.is_cuda, ".is_cuda"),
])
def test_anything_else_is_refused_naming_the_argument(read, asked):
    arguments = {"a_ptr": Pointer("fp16")}
    with pytest.raises(KnownOnlyByType) as raised:
        read(stand_ins(arguments)["a_ptr"])
    assert reads_an_unknown(raised.value)
    line = what_it_read(raised.value, arguments)
    assert line.startswith(f"a_ptr was given only as *fp16:16; the code read {asked}") and "\n" not in line


def test_a_scalar_says_what_was_read():
    arguments = {"K": Scalar("i32", divisible_by_16=True)}
    with pytest.raises(KnownOnlyByType) as raised:
        stand_ins(arguments)["K"].bit_length()
    assert what_it_read(raised.value, arguments).startswith("K was given only as i32:16 (the code read .bit_length)")


@pytest.mark.parametrize("signature, block, half, aligned, vec", [
    ("*fp16:16, *fp16:16, i32:16", [128], True, True, 8),  # the pruner keeps BLOCK ≥ 8 × 16
    ("*fp32, *fp32:16, i32:16", [64, 128], False, False, 4),
])
def test_heuristics_and_pruner_run_on_pointers_given_by_type(signature, block, half, aligned, vec):
    pytest.importorskip("torch")  # the kernel's heuristics compare with torch.float16
    builds = resolve(f"{HEURISTICS}:scaled_copy", RefOptions.from_cli(signature=signature, config="all", arch="sm_90"))
    assert [b.config["BLOCK"] for b in builds] == block
    assert {(b.config["IS_HALF"], b.config["ALIGNED"], b.config["VEC"]) for b in builds} == {(half, aligned, vec)}


def test_a_heuristic_reading_a_shape_gets_one_line():
    pytest.importorskip("torch")
    result = run_cli("report", f"{HEURISTICS}:reads_shape", "--signature", "*fp32:16, i32")
    assert_one_line_error(result, 2, "ROWS could not be computed", "x_ptr was given only as *fp32:16",
                          "the code read .shape", "pointer_heuristics.py:32")

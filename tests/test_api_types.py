"""The Python API reads like Python: public values print readably, public functions are annotated,
and mypy passes on the package."""

from __future__ import annotations

import importlib.util
import inspect as pyinspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ttinspect
from ttinspect.compare.facts_diff import Change
from ttinspect.facts.model import Counts, Fact

ROOT = Path(__file__).resolve().parent.parent


def _change(before, after, title="t") -> Change:
    return Change("k", title, "g", before, after, "why")


# --- Change ------------------------------------------------------------------------------------

def test_change_of_a_mapping_shows_only_the_entries_that_differ():
    change = _change((("BLOCK_SIZE_M", 64), ("BLOCK_SIZE_K", 32)),
                     (("BLOCK_SIZE_M", 128), ("BLOCK_SIZE_K", 32), ("GROUP_SIZE_M", 8)), "block sizes / constexprs")
    assert str(change) == "block sizes / constexprs: BLOCK_SIZE_M 64 → 128, GROUP_SIZE_M absent → 8"
    assert repr(change) == "Change(k: BLOCK_SIZE_M 64 → 128, GROUP_SIZE_M absent → 8)"
    assert change.before_text == "BLOCK_SIZE_M=64, BLOCK_SIZE_K=32"
    assert change.after_text == "BLOCK_SIZE_M=128, BLOCK_SIZE_K=32, GROUP_SIZE_M=8"


def test_change_of_a_multiset_counts_a_missing_item_as_zero():
    change = _change(Counts(()), Counts((("div.s32", 2), ("rem.s32", 5))), "rem / div")
    assert str(change) == "rem / div: div.s32 0 → 2, rem.s32 0 → 5"
    assert change.before_text == "none" and change.after_text == "div.s32×2, rem.s32×5"


@pytest.mark.parametrize("before,after,text", [
    (3, 4, "t: 3 → 4"),
    (None, 8, "t: unknown → 8"),
    (8, None, "t: 8 → unknown"),
    (None, None, "t: unknown → unknown"),  # both unknown, for different reasons
    (False, True, "t: no → yes"),
    ((2,), (4,), "t: 2 → 4"),
    ("2-D grid", "grouped", "t: 2-D grid → grouped"),
    ((("a", 1), ("b", 2)), (("b", 2), ("a", 1)), "t: a=1, b=2 → b=2, a=1"),  # same entries, reordered
])
def test_change_of_other_values(before, after, text):
    assert str(_change(before, after)) == text


def test_change_keeps_its_raw_values():
    before, after = (("BLOCK_SIZE_M", 64),), (("BLOCK_SIZE_M", 128),)
    change = _change(before, after)
    assert change.before == before and change.after == after


# --- Fact --------------------------------------------------------------------------------------

def test_fact_repr_and_str():
    assert repr(Fact("pipeline_depth", "pipeline depth", "pipeline", 4, "e", "ptx")) == "Fact(pipeline_depth=4)"
    counted = Fact("loop_mma", "mma per iteration", "tensor cores", Counts((("m16n8k16", 4),)), "e", "ptx")
    assert repr(counted) == "Fact(loop_mma=m16n8k16×4)" and str(counted) == "mma per iteration: m16n8k16×4"
    missing = Fact("group_size_m", "GROUP_SIZE_M", "program order", None, "e", "ptx", unknown="no swizzle")
    assert repr(missing) == "Fact(group_size_m=unknown)"
    assert str(missing) == "GROUP_SIZE_M: unknown: no swizzle"


# --- compiled reports (offline, cached) ---------------------------------------------------------

def test_report_repr():
    report = ttinspect.inspect("opt", arch="sm_90")
    assert repr(report) == f"Report(opt@sm_90, Triton {report.triton_version}, {len(report.facts)} facts)"
    assert str(report) == repr(report)
    assert repr(report.fact("num_stages")) == "Fact(num_stages=4)"
    assert repr(report.fact("tensor_core_path")) == "Fact(tensor_core_path=wgmma)"


def test_diff_repr_str_and_changes():
    result = ttinspect.diff("naive", "opt")
    count = len(result.changes)
    assert re.fullmatch(rf"Diff\(naive@(sm_\d+) vs opt@\1: {count} changes\)", repr(result)), repr(result)
    lines = str(result).split("\n")
    assert lines[0] == repr(result) and len(lines) == count + 1
    blocks = result.change("block_sizes")
    assert blocks is not None
    assert str(blocks) == ("block sizes / constexprs: BLOCK_SIZE_M 64 → 128, BLOCK_SIZE_N 64 → 32, "
                           "GROUP_SIZE_M absent → 8")
    assert f"  {blocks}" in lines
    assert str(result.change("num_stages")) == "num_stages (configured): 3 → 4"
    # The values and the JSON keep their shapes: tuples of pairs, and objects in as_dict.
    assert blocks.before == (("BLOCK_SIZE_M", 64), ("BLOCK_SIZE_N", 64), ("BLOCK_SIZE_K", 32))
    entry = next(c for c in result.as_dict()["changes"] if c["key"] == "block_sizes")
    assert set(entry) == {"key", "title", "a", "b", "explanation"}
    assert entry["a"] == {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32}


# --- annotations -------------------------------------------------------------------------------

def _unannotated(function) -> list[str]:
    signature = pyinspect.signature(function)
    missing = [name for name, p in signature.parameters.items()
               if name not in ("self", "cls") and p.annotation is pyinspect.Parameter.empty]
    if signature.return_annotation is pyinspect.Signature.empty and function.__name__ != "__init__":
        missing.append("return")
    return missing


def _public_functions(obj) -> list:
    if not isinstance(obj, type):
        return [obj] if callable(obj) else []
    return [member for name, member in vars(obj).items()
            if pyinspect.isfunction(member) and (not name.startswith("_") or name == "__init__")]


def test_public_api_is_annotated():
    from ttinspect import pytest_plugin

    objects = [getattr(ttinspect, name) for name in ttinspect.__all__]
    objects += [pytest_plugin.expect, pytest_plugin.TTInspectFixture, pytest_plugin.ExpectationFailed,
                pytest_plugin.pytest_runtest_makereport, pytest_plugin.pytest_assertrepr_compare]
    gaps = {f"{function.__qualname__}: {', '.join(missing)}"
            for obj in objects for function in _public_functions(obj)
            if (missing := _unannotated(function))}
    assert not gaps, sorted(gaps)


def test_package_is_marked_typed():
    assert (ROOT / "ttinspect" / "py.typed").is_file()


# --- mypy --------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
def test_mypy_passes(tmp_path):
    """The whole package type-checks (pyproject's [tool.mypy]; CI runs it too, in its lint step)."""
    run = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path), "ttinspect"],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr

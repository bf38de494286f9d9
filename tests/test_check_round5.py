"""Issue 39, round 5: two `check` findings met on a library never used before, fixed by their class on kernels of
our own (tests/data/check_round5/kernels.py):

- TTI005: an index with a constant stride > 1 along the tile's fastest dimension (`X + 2 * i`, interleaved pairs;
  every other column of a 2-D tile) is strided by the kernel itself: said so at INFO with the stride, and no
  argument blamed for a hint it lacks. A contiguous access still blames the missing hint.
- TTI001: loads under an `if` in the loop body (or feeding a tl.dot under one) are a known reason, said with the
  `if`'s line; a loop whose `if` holds no load is pipelined (nothing said), and one that fails for another reason
  keeps that reason without the `if` blamed. Triton 3.9 prints tl.debug_barrier as `ttg.barrier`, which is
  still a barrier.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ttinspect.check import check_reference
from ttinspect.refs.resolver import RefOptions

KERNELS = Path(__file__).parent / "data" / "check_round5" / "kernels.py"
DOT_LOOP = "*bf16:16, *bf16:16, *fp32:16, 64, 64, 64"

_FOUND: dict[tuple, tuple] = {}


def findings(kernel: str, signature: str, arch: str = "sm_90") -> tuple:
    key = (kernel, signature, arch)
    if key not in _FOUND:
        options = RefOptions.from_cli((), (), signature, None, arch)
        _FOUND[key] = check_reference(f"{KERNELS}:{kernel}", options)[1]
    return _FOUND[key]


def of(rule: str, found) -> list:
    return [f for f in found if f.id == rule]


def line_of(kernel: str, text: str) -> int:
    """The line of the first `text` in `kernel`'s body of the data file (so an edit above it moves nothing)."""
    lines = KERNELS.read_text().splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith(f"def {kernel}("))
    return next(n for n, line in enumerate(lines[start:], start) if text in line) + 1


# --- TTI005: strided by the kernel's own indexing -------------------------------------------------------------

@pytest.mark.parametrize("kernel, signature, accesses", [
    ("interleaved_pairs", "*fp16:16, i32, 256", ("x = tl.load", "y = tl.load", "tl.store(X + 2 * i,",
                                                 "tl.store(X + 2 * i + 1")),
    ("interleaved_pairs", "*fp16:16, i32:16, 256", ("x = tl.load", "y = tl.load", "tl.store(X + 2 * i,",
                                                    "tl.store(X + 2 * i + 1")),
    ("every_other_column", "*fp16:16, *fp16:16, 64, 64", ("x = tl.load",)),
])
def test_a_strided_index_is_said_as_such_and_blames_no_argument(kernel, signature, accesses):
    found = of("TTI005", findings(kernel, signature))
    assert {int(f.title.split(" on line ")[1].split()[0]) for f in found} == {line_of(kernel, a) for a in accesses}
    for finding in found:
        assert finding.severity == "info"
        assert "are strided" in finding.title and "tile allows" not in finding.title
        assert "not a missing hint" in finding.why
        assert "Responsible" not in finding.why and ":16" not in finding.fix
        assert not [e for e in finding.evidence if e.stage in ("metadata", "ttir")]  # no argument as evidence
        if kernel == "every_other_column" and "128 elements (256 bytes) apart" in finding.title:
            continue  # Triton 3.6 lays this tile out row first: its fastest axis steps by a row (128), also strided
        assert "2 elements (4 bytes) apart" in finding.title and "steps by 2 elements" in finding.why
        assert "tl.arange(0, 2)[None, :]" in finding.fix and "tl.split" in finding.fix


@pytest.mark.parametrize("kernel, signature, access, blamed", [
    ("contiguous_masked", "*fp16:16, i32, 256", "x = tl.load", "n: an integer without divisibility by 16"),
    ("contiguous_unaligned", "*fp16, *fp16:16, 256", "x = tl.load", "X: a pointer without the 16-byte alignment"),
])
def test_a_contiguous_narrow_access_still_blames_the_missing_hint(kernel, signature, access, blamed):
    line = line_of(kernel, access)
    (finding,) = [f for f in of("TTI005", findings(kernel, signature)) if f" on line {line} " in f.title + " "]
    assert finding.severity == "warning" and "where the tile allows 4" in finding.title
    assert "strided" not in finding.title and blamed in finding.why


# --- TTI001: loads under an `if` in the loop body -------------------------------------------------------------

@pytest.mark.parametrize("kernel, arch, inside, feeding", [
    ("loads_under_if", "sm_90", ("k = tl.load", "v = tl.load"), ()),
    ("loads_under_if", "gfx942", ("k = tl.load", "v = tl.load"), ()),
    ("one_load_under_if", "sm_90", ("v = tl.load",), ("k = tl.load",)),
])
def test_loads_under_an_if_are_a_known_reason_with_the_if_line(kernel, arch, inside, feeding):
    (finding,) = of("TTI001", findings(kernel, DOT_LOOP, arch))
    if_line = line_of(kernel, "if i < N_BLOCKS - 1:")
    assert finding.severity == "warning" and "reason unknown" not in finding.why
    lines = ", ".join(str(line_of(kernel, text)) for text in inside)
    assert f"on line {lines} sit{'s' if len(inside) == 1 else ''} under the `if` on line {if_line}" in finding.why
    if feeding:
        assert f"on line {line_of(kernel, feeding[0])} feeds a tl.dot under the `if` on line {if_line}" in finding.why
    assert any(e.stage == "ttir" and "scf.if" in e.text and e.python_line == if_line for e in finding.evidence)
    assert "mask=cond" in finding.fix


def test_a_loop_whose_if_holds_no_load_is_pipelined_and_not_blamed():
    assert not of("TTI001", findings("loads_before_if", DOT_LOOP))


@pytest.mark.parametrize("kernel, reason", [
    ("barrier_and_if", "the loop holds a CTA barrier (tl.debug_barrier)"),
    ("single_stage_and_if", "the loop itself asks for one stage"),
])
def test_a_loop_failing_for_another_reason_keeps_it_and_the_if_is_not_blamed(kernel, reason):
    (finding,) = of("TTI001", findings(kernel, DOT_LOOP))
    assert reason in finding.why and "reason unknown" not in finding.why
    assert "`if`" not in finding.why and not any("scf.if" in e.text for e in finding.evidence)

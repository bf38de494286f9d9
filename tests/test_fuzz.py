"""Inputs that cannot crash it: every parser and fact function (fuzz_harness.analyze) on truncated,
mutated, CRLF, non-UTF-8, huge-line, empty and foreign text gives facts or a typed error — never
another exception — and its time grows linearly with the input (benchmarks/parser_scaling.py measures
the 1 MB / 50 MB figures; here a 50x step at a smaller size keeps CI fast)."""

from __future__ import annotations

import sys

import pytest
from fuzz_harness import NVCC_PTX, SEEDS, analyze
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ttinspect.errors import ParseError, TTInspectError

STAGES = sorted(SEEDS)
TEXT = {stage: SEEDS[stage].read_text() for stage in STAGES}


def _mutate(text: str, kind: str, at: int, size: int, junk: str) -> str:
    at = at % (len(text) + 1)
    lines = text.split("\n")
    line = at % len(lines)
    if kind == "truncate":
        return text[:at]
    if kind == "crlf":
        return text.replace("\n", "\r\n")
    if kind == "drop_lines":
        return "\n".join(lines[:line] + lines[line + 1 + size % 40:])
    if kind == "duplicate_lines":
        return "\n".join(lines[:line] + lines[line:line + 1 + size % 40] * 3 + lines[line:])
    if kind == "splice":
        return text[:at] + junk + text[at:]
    if kind == "huge_line":
        return "\n".join(lines[:line] + [lines[line] + "x" * (100_000 + size)] + lines[line + 1:])
    if kind == "non_utf8":  # what a damaged file decodes to with errors="surrogateescape" / latin-1
        raw = bytearray(text.encode())
        for i in range(0, len(raw), max(1, size)):
            raw[i] = 0xFF - raw[i] % 0x80
        return raw.decode("utf-8", errors="surrogateescape")
    if kind == "shuffle":
        return "\n".join(lines[line:] + lines[:line])
    raise ValueError(kind)


KINDS = ["truncate", "crlf", "drop_lines", "duplicate_lines", "splice", "huge_line", "non_utf8", "shuffle"]


@pytest.mark.parametrize("stage", STAGES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), at=st.integers(0, 10**7), size=st.integers(0, 5000),
       junk=st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_mutated_text_gives_facts_or_a_typed_error(stage, kind, at, size, junk):
    analyze(stage, _mutate(TEXT[stage], kind, at, size, junk))  # raises only if not a TTInspectError


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("text", ["", "\n", "\r\n", "\x00", "\ufeff", "}", "{" * 10_000, "(" * 10_000,
                                  "loc(" * 5000, "\udcff" * 100, "%0 = " * 5000, ".loc 1 2 3\n" * 1000])
def test_degenerate_text(stage, text):
    analyze(stage, text)


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("other", STAGES + ["nvcc_ptx"])
def test_foreign_text(stage, other):
    """Another stage's text (a SASS dump read as PTX), and PTX of another producer (nvcc)."""
    analyze(stage, NVCC_PTX if other == "nvcc_ptx" else TEXT[other])


def test_nvcc_ptx_is_read():
    facts = {f.key: f for f in analyze("ptx", NVCC_PTX)}
    assert facts["loop_cp_async"].value == (("ca.16B", 1),)
    assert facts["pipeline_depth"].value == 3  # wait_group 1 / 1 commit group + 2
    assert facts["tensor_core_path"].value == "none"


def test_a_parse_error_carries_its_line():
    """The typed error users meet names the line (ParseError's contract)."""
    error = ParseError("unbalanced braces", line=12, stage="ptx")
    assert str(error) == "ptx line 12: unbalanced braces" and isinstance(error, TTInspectError)


def _grown(stage: str, target_bytes: int) -> str:
    """A valid-looking input of about target_bytes: the seed's body repeated (so every parser meets the
    same constructs many times over, as in a huge real kernel)."""
    text = TEXT[stage]
    return text * max(1, target_bytes // len(text))


def _python_lines_run(stage: str, text: str) -> int:
    """How many Python lines analysing `text` executes: a measure of work that does not depend on how busy the
    machine is (a duration would: timings live in benchmarks/parser_scaling.py, never in an assertion)."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        analyze(stage, text)
    finally:
        sys.settrace(previous)
    return count


@pytest.mark.slow  # traces the parsers line by line on 20-400 KB inputs
@pytest.mark.parametrize("stage", STAGES)
def test_work_grows_linearly(stage):
    """20x the input within 1.5 x 20x the Python lines executed. The first run of the benchmark found TTIR
    going quadratic (every loop scanning every op of the module): a quadratic step is ~20x over here."""
    if sys.gettrace() is not None:
        pytest.skip("running under a tracer (coverage, a debugger)")
    small, large = _grown(stage, 20_000), _grown(stage, 400_000)
    ratio = len(large) / len(small)
    lines_small, lines_large = _python_lines_run(stage, small), _python_lines_run(stage, large)
    assert lines_large <= 1.5 * ratio * lines_small, (stage, lines_small, lines_large, ratio)

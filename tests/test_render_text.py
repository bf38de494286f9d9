"""The rendered text of report, diff and list at 80 and 120 columns: golden files (`--update-golden`
rewrites them), every line within the width, the short report within a screen.

The facts come from tests/data/render/*.json (captured from Triton 3.9 compiles), so the layout is tested
the same on every Triton; a live compile checks the line budget on the installed one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from golden_option import updating
from ttinspect.cli.main import cli
from ttinspect.compare.facts_diff import diff_reports
from ttinspect.facts.model import Fact
from ttinspect.render.diff_view import diff_lines
from ttinspect.render.report_view import explained_lines, short_lines
from ttinspect.report.model import Report
from ttinspect.report.store import _decode_value

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "render"
GOLDEN = HERE / "golden" / "render"
WIDTHS = (80, 120)


def fixture_report(name: str) -> Report:
    record = json.loads((DATA / f"{name}.json").read_text())
    facts = tuple(Fact(key, title, group, _decode_value(value), explanation, source, why)
                  for key, title, group, value, explanation, source, why in record["facts"])
    return Report(record["label"], record["kernel"], record["target"], record["triton_version"],
                  record["config"], facts)


def text(lines) -> str:
    return "\n".join(line.plain for line in lines) + "\n"


def check_golden(request, name: str, rendered: str) -> None:
    path = GOLDEN / f"{name}.txt"
    if updating(request.config):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rendered)
        return
    assert path.is_file(), f"{path} missing: run pytest --update-golden"
    assert rendered == path.read_text(), f"{name} changed: compare with {path} (pytest --update-golden)"


def within(rendered: str, width: int) -> None:
    wide = [line for line in rendered.splitlines() if len(line) > width]
    assert not wide, f"{len(wide)} lines wider than {width}: {wide[:3]}"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["opt-sm_90", "tileon-sm_90", "naive-sm_89"])
def test_report_short(request, name, width):
    rendered = text(short_lines(fixture_report(name), width))
    within(rendered, width)
    check_golden(request, f"report-{name}-{width}", rendered)
    assert rendered.rstrip().endswith("every fact's full explanation"), "the foot names --explain"
    assert "--explain" in rendered.splitlines()[-1]


@pytest.mark.parametrize("width", WIDTHS)
def test_report_explain(request, width):
    report = fixture_report("opt-sm_90")
    rendered = text(explained_lines(report, width))
    within(rendered, width)
    check_golden(request, f"report-explain-opt-sm_90-{width}", rendered)
    for fact in report.facts:  # every fact, detail ones too
        assert fact.title[:20] in rendered


def test_report_fits_a_screen_at_120():
    """The issue's budget: `report opt --arch sm_90` in at most 60 lines at 120 columns."""
    assert len(short_lines(fixture_report("opt-sm_90"), 120)) <= 60


def test_short_report_hides_nothing_silently():
    """Every fact is either a row, named in a folded line, or counted as a detail fact at the foot."""
    report = fixture_report("opt-sm_90")
    rendered = text(short_lines(report, 120))
    from ttinspect.render.glance import DETAIL

    hidden = [f for f in report.facts if f.key in DETAIL]
    assert f"{len(hidden)} more facts" in rendered
    flat = " ".join(rendered.split())  # a folded line may break a title across two lines
    for fact in report.facts:
        if fact.key not in DETAIL:  # a long title keeps its beginning and its end ("tensor-core in…(SASS)")
            title = " ".join(fact.title.split())
            assert title[:12] in flat and title[-5:] in flat, fact.title


@pytest.mark.parametrize("width", WIDTHS)
def test_diff(request, width):
    result = diff_reports(fixture_report("naive-sm_89"), fixture_report("opt-sm_89"))
    rendered = text(diff_lines(result, width))
    within(rendered, width)
    check_golden(request, f"diff-naive-opt-sm_89-{width}", rendered)
    lines = rendered.splitlines()
    assert lines[0].endswith(f"{len(result.changes)} of {len(result.rows)} facts differ")
    same = sum(1 for fa, fb in result.rows if fa.value == fb.value and fa.unknown == fb.unknown)
    assert lines[-1].startswith(f"{same} facts are the same")


def test_diff_all_lists_unchanged_facts():
    result = diff_reports(fixture_report("naive-sm_89"), fixture_report("opt-sm_89"))
    rendered = text(diff_lines(result, 120, show_all=True))
    within(rendered, 120)
    for fa, _ in result.rows:
        assert fa.title[:30] in rendered


def test_diff_of_equal_reports():
    report = fixture_report("opt-sm_90")
    rendered = text(diff_lines(diff_reports(report, report), 80))
    assert "No fact differs." in rendered and "0 of" in rendered


@pytest.mark.parametrize("width", WIDTHS)
def test_list(request, width):
    result = CliRunner().invoke(cli, ["list", "--width", str(width)], catch_exceptions=False)
    assert result.exit_code == 0
    within(result.output, width)
    check_golden(request, f"list-{width}", result.output)


@pytest.mark.slow  # compiles
def test_live_report_fits(tmp_path):
    """The installed Triton's own facts: the short report of opt on sm_90 fits 60 lines at 120 columns and
    nothing is wider than 80 at 80."""
    for width, budget in ((120, 60), (80, None)):
        result = CliRunner().invoke(cli, ["report", "opt", "--arch", "sm_90", "--width", str(width)],
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        within(result.output, width)
        if budget:
            assert len(result.output.splitlines()) <= budget, result.output


def test_ladder_table_names_each_step_once(capsys):
    from ttinspect.render import term
    from ttinspect.render.gpu_tables import ladder_table

    data = {"device": "NVIDIA H100", "size": 4096, "cublas": {"tflops": 700.0}, "steps": [
        {"step": "naive", "label": "naive", "tflops": 300.0, "speedup_vs_naive": 1.0},
        {"step": "+group", "label": "naive:GROUP_SIZE_M=8", "tflops": 330.0, "speedup_vs_previous": 1.1,
         "speedup_vs_naive": 1.1, "changes": [
             {"key": "program_order", "title": "program order", "before": "2-D grid", "after": "grouped"},
             {"key": "setp", "title": "setp (comparisons)", "before": 20, "after": 21}]}]}
    term.configure(width=80, color="never")
    try:
        ladder_table(data)
    finally:
        term.reset()
    out = capsys.readouterr().out
    within(out, 80)
    # "× naive" (a column), the first step (its label is its name: not repeated), the second step's label
    assert out.count("naive") == 3, out
    assert "program order: 2-D grid" in out and "grouped" in out
    assert "setp" not in out  # a detail fact: in the JSON, not in the table

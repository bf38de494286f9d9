"""The gate's own rules beyond the guards (issue 41), on hand-made snapshots (nothing compiles): budgets per entry
or glob, tolerances, suppressions with a reason and an expiry, strict mode, the Triton release, per-entry accept,
levels, locations and units — and `[tool.ttinspect]`'s new keys validated as untrusted input (one line, file:line)."""

from __future__ import annotations

import datetime
import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from test_ci_formats import validate_sarif
from ttinspect.ci.junit import to_junit
from ttinspect.ci.markdown import to_markdown
from ttinspect.ci.model import IMPROVED, NEUTRAL, REGRESSED, SUPPRESSED
from ttinspect.ci.sarif import to_sarif
from ttinspect.errors import UsageError
from ttinspect.snapshot.accept import accepted, selected_keys
from ttinspect.snapshot.config import load
from ttinspect.snapshot.gate import gate
from ttinspect.snapshot.policy import apply
from ttinspect.snapshot.run import Computed, check, for_code_scanning
from ttinspect.snapshot.strictness import RELEASE_KEY, strict_results

TODAY = datetime.date(2026, 6, 1)


def entry(**facts):
    return {"kernel": "mm.py:matmul", "target": "sm_90", "file": "ops/mm.py", "line": 17,
            "facts": {"registers": 96, "spills": 0, "occupancy": "25%", "occupancy_limit": "registers",
                      "blocks_per_sm": 2, "shared_memory": 65536, **facts}, "findings": []}


def library(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "ops").mkdir(exist_ok=True)
    (tmp_path / "ops" / "mm.py").write_text("TTINSPECT_EXAMPLES = {}\n")
    (tmp_path / "pyproject.toml").write_text(f'[tool.ttinspect]\nkernels = ["ops/*.py"]\ntargets = ["sm_90"]\n{extra}')
    return tmp_path


def checked(tmp_path, extra, committed, now, triton="3.9.0", recorded="3.9.0"):
    config = load(library(tmp_path, extra))
    return check(config, {"triton_version": recorded, "entries": committed}, Computed(now, triton_version=triton),
                 today=TODAY)


def test_units_levels_and_the_cause_of_a_lost_tensor_core_path():
    committed = {"ops/mm.py:a@sm_90": entry(tensor_core_path="wgmma")}
    now = {"ops/mm.py:a@sm_90": {**entry(spills=77, tensor_core_path="none", occupancy="12%", blocks_per_sm=1),
                                 "evidence": {"dots": [{"a": "f32", "b": "f32", "precision": "ieee", "ttir_line": 41}]},
                                 "findings": [{"id": "TTI003", "severity": "warning", "title": "spills", "line": 9}]}}
    report = gate({"entries": committed}, now, fail_on="warning", guard=("spills", "tensor_core_path", "occupancy"))
    by_rule = {r.rule: r for r in report.results}
    assert by_rule["regression/spills"].message == "spills: local memory 0 → 308 B per thread on sm_90"
    assert by_rule["regression/spills"].level == "error" and by_rule["TTI003"].level == "warning"
    assert by_rule["TTI003"].status == REGRESSED  # fails the gate at fail-on = warning, at its own level
    lost = by_rule["regression/tensor-core-path"].detail
    assert "f32 × f32" in lost and 'input_precision="ieee"' in lost and "ttir:41" in lost
    occupancy = by_rule["regression/occupancy"]
    assert occupancy.message == "occupancy: 25% → 12% (limited by registers) on sm_90"
    assert "2 → 1 CTAs" in occupancy.detail
    assert not any("blocks_per_sm" in r.message or "limited by:" in r.message for r in report.results)


def test_a_finding_whose_precondition_went_is_no_improvement():
    committed = {"k.py:a@sm_90": {**entry(tensor_core_path="wgmma"),
                                  "findings": [{"id": "TTI007", "severity": "info", "title": "no TMA"}]}}
    lost = {"k.py:a@sm_90": entry(tensor_core_path="mma.sync")}
    (gone,) = [r for r in gate({"entries": committed}, lost, fail_on="error", guard=("tensor_core_path",)).results
               if r.rule == "TTI007"]
    assert gone.status == NEUTRAL and "no longer applies" in gone.message
    fixed = {"k.py:a@sm_90": entry(tensor_core_path="wgmma")}
    (gone,) = gate({"entries": committed}, fixed, fail_on="error", guard=("tensor_core_path",)).results
    assert gone.status == IMPROVED


def test_a_file_that_no_longer_loads_is_located_in_every_format(tmp_path):
    now = {"ops/broken.py:*@sm_90": {"error": "ops/broken.py:3: SyntaxError: invalid syntax"}}
    report = checked(tmp_path, "", {}, now)
    (result,) = [r for r in report.results if r.entry == "ops/broken.py:*@sm_90"]
    assert (result.file, result.line) == ("ops/broken.py", 3)
    config = load(tmp_path)
    log = to_sarif(for_code_scanning(report, tmp_path, config.kernels_at), tmp_path)
    validate_sarif(log)
    assert all(r.get("locations") for r in log["runs"][0]["results"])
    assert log["runs"][0]["tool"]["driver"]["version"] == report.ttinspect_version != ""
    markdown = to_markdown(report)
    assert markdown.count("SyntaxError") == 1  # the table row only: its details would repeat it
    assert "(error, error)" not in markdown and "### Could not be checked" not in markdown


@pytest.mark.parametrize("extra, failed, status", [
    ("[[tool.ttinspect.budget]]\nentries = 'ops/mm.py:*'\nregisters = 64\n", True, REGRESSED),
    ("[[tool.ttinspect.budget]]\nentries = 'ops/other.py:*'\nregisters = 64\n", False, None),
    ("[[tool.ttinspect.budget]]\noccupancy = 50\n", True, REGRESSED),
    ("[[tool.ttinspect.budget]]\nregisters = 64\n[[tool.ttinspect.allow]]\nrule = 'budget/registers'\n"
     "reason = 'known: #12'\nexpires = 2026-12-31\n", False, SUPPRESSED),
    ("[[tool.ttinspect.budget]]\nregisters = 64\n[[tool.ttinspect.allow]]\nrule = 'budget/registers'\n"
     "reason = 'known: #12'\nexpires = 2026-01-31\n", True, REGRESSED),  # expired: fails again
])
def test_budgets_and_suppressions(tmp_path, extra, failed, status):
    committed = {"ops/mm.py:a@sm_90": entry()}
    report = checked(tmp_path, extra, committed, {"ops/mm.py:a@sm_90": entry()})
    budget = [r for r in report.results if r.rule.startswith("budget/")]
    assert report.failed == failed and [r.status for r in budget] == ([status] if status else [])
    if status == SUPPRESSED:
        assert "known: #12 (until 2026-12-31" in budget[0].suppressed
        sarif = to_sarif(report, tmp_path)["runs"][0]["results"][0]
        assert sarif["suppressions"][0]["justification"].startswith("known: #12")
        assert "### Suppressed (1)" in to_markdown(report)
        assert "Allowed: known: \\#12 (until 2026-12-31" in to_markdown(report)
        assert json.loads(json.dumps(report.as_dict()))["results"][0]["suppressed"]
        out = ET.fromstring(to_junit(report)).findtext(".//system-out") or ""
        assert "budget/registers [suppressed]" in out and "allowed: known: #12" in out
    if "2026-01-31" in extra:
        assert any("expired on 2026-01-31" in note for note in report.notes)


def test_a_tolerance_lets_a_small_change_pass(tmp_path):
    extra = "guard = ['registers', 'spills']\n[tool.ttinspect.tolerance]\nregisters = 4\n"
    small = checked(tmp_path, extra, {"ops/mm.py:a@sm_90": entry()}, {"ops/mm.py:a@sm_90": entry(registers=100)})
    (change,) = small.results
    assert not small.failed and change.status == NEUTRAL and "within the tolerance of 4" in change.message
    big = checked(tmp_path, extra, {"ops/mm.py:a@sm_90": entry()}, {"ops/mm.py:a@sm_90": entry(registers=101)})
    assert big.failed and big.results[0].rule == "regression/registers"


def test_strict_fails_new_removed_and_stale_entries(tmp_path):
    committed = {"ops/mm.py:a@sm_90": entry(), "ops/mm.py:gone@sm_90": entry(), "ops/mm.py:c@sm_90": entry()}
    now = {"ops/mm.py:a@sm_90": entry(num_warps=8), "ops/mm.py:new@sm_90": entry(), "ops/mm.py:c@sm_90": entry()}
    relaxed = checked(tmp_path, "", committed, now)
    assert not relaxed.failed
    report = checked(tmp_path, "strict = true\n", committed, now)
    failing = sorted(e.key for e in report.entries if e.failed)
    assert failing == ["ops/mm.py:a@sm_90", "ops/mm.py:gone@sm_90", "ops/mm.py:new@sm_90"]
    assert strict_results(report) is not None and "ops/mm.py:c@sm_90" not in failing


def test_another_triton_release_fails_unless_warned_or_accepted(tmp_path):
    same = {"ops/mm.py:a@sm_90": entry()}
    report = checked(tmp_path, "", same, same, triton="3.9.0", recorded="3.8.0")
    assert report.failed and report.entries[0].key == RELEASE_KEY
    assert "made with Triton 3.8.0; this run compiled with Triton 3.9.0" in report.results[0].message
    assert report.results[0].file == "ttinspect.snapshot.json"
    warned = checked(tmp_path, 'release-change = "warn"\n', same, same, triton="3.9.0", recorded="3.8.0")
    assert not warned.failed and warned.results[0].level == "warning"
    taken = accepted(report, selected_keys(report, ()))
    assert not taken.failed and taken.results[0].status == SUPPRESSED


def test_update_entry_accepts_only_those(tmp_path):
    committed = {"ops/mm.py:a@sm_90": entry(), "ops/mm.py:b@sm_90": entry()}
    now = {key: entry(spills=10) for key in committed}
    report = checked(tmp_path, "", committed, now)
    chosen = selected_keys(report, ("ops/mm.py:a@*",))
    assert chosen == {"ops/mm.py:a@sm_90"}
    after = accepted(report, chosen)
    assert [e.key for e in after.entries if e.failed] == ["ops/mm.py:b@sm_90"]
    with pytest.raises(UsageError, match="no entry of this run matches"):
        selected_keys(report, ("ops/nothing.py:*@*",))


@pytest.mark.parametrize("extra, says", [
    ("strict = 'yes'\n", "strict = 'yes': true or false"),
    ("release-change = 'ignore'\n", "release-change = 'ignore'"),
    ("[[tool.ttinspect.budget]]\nregisters = -1\n", "registers = -1"),
    ("[[tool.ttinspect.budget]]\nentries = '*'\n", "sets no limit"),
    ("[[tool.ttinspect.budget]]\nregister = 1\n", "unknown key 'register'"),
    ("[[tool.ttinspect.budget]]\noccupancy = 150\n", "occupancy = 150"),
    ("[tool.ttinspect.tolerance]\nspills = 1\n", "unknown key 'spills'"),
    ("[[tool.ttinspect.allow]]\nrule = 'TTI003'\nexpires = 2026-12-31\n", "needs a reason"),
    ("[[tool.ttinspect.allow]]\nrule = 'TTI003'\nreason = 'x'\nexpires = '2026-12-31'\n", "needs expires"),
    ('[[tool.ttinspect.allow]]\nrule = "TTI003"\nreason = "a\\u0007b"\nexpires = 2026-12-31\n', "needs a reason"),
])
def test_a_bad_policy_value_is_one_line_with_its_line(tmp_path, extra, says):
    with pytest.raises(UsageError) as raised:
        load(library(tmp_path, extra))
    text = str(raised.value)
    assert says in text and "\n" not in text and f"{tmp_path / 'pyproject.toml'}:" in text, text
    line = int(text.split("pyproject.toml:")[1].split(":")[0])
    assert line >= 4  # the key's own line (or its table's header), not the file's first


def test_every_format_says_a_suppression(tmp_path):
    report = checked(tmp_path, "[[tool.ttinspect.budget]]\nregisters = 64\n[[tool.ttinspect.allow]]\n"
                     "rule = '*'\nreason = 'known'\nexpires = 2026-12-31\n",
                     {"ops/mm.py:a@sm_90": entry()}, {"ops/mm.py:a@sm_90": entry()})
    report = apply(report, {}, load(tmp_path).policy, TODAY)  # applying twice changes nothing
    assert not report.failed and replace(report).results[0].status == SUPPRESSED

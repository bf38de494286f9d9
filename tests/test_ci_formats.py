"""CI formats (ttinspect/ci/sarif.py, markdown.py, junit.py; ttinspect/ci/): the three renderers on a
hand-built CIReport with hostile text (`|`, backticks, `<`, `&`, control characters, non-ASCII); SARIF
valid against the official 2.1.0 schema (tests/data/sarif/) with stable fingerprints; Markdown tables
that stay tables; JUnit XML that parses back with the right testcases, failures and skips; check and diff
turned into CIReports (files relative to the repository root, lines from the evidence or the `def`);
and the CLI — `check` / `diff` with `--format` and `-o`, on the shipped tileon (spills on sm_90), naive
and opt: exit codes as before, `--json` unchanged, `-o` checked before compiling, written atomically,
never through a link."""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest
from cli_helpers import run_cli

from ttinspect.check import Evidence, Finding
from ttinspect.ci import CIReport, Entry, Result, Rule
from ttinspect.ci.from_check import ci_from_findings, def_line_of, find_repo_root, relative_file
from ttinspect.ci.from_diff import ci_from_diff
from ttinspect.ci.write import check_format_and_output, emit
from ttinspect.compare.facts_diff import Change
from ttinspect.errors import UsageError
from ttinspect.ci.junit import to_junit
from ttinspect.ci.markdown import TABLE_HEADER, to_markdown
from ttinspect.ci.sarif import FINGERPRINT_KEY, to_sarif

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text())
HOSTILE = "a|b `c` <d> & e *f* _g_ [h](i) ünïcødé → 日本 \x1b[31m"
CELL_SPLIT = re.compile(r"(?<!\\)\|")  # a Markdown cell border: a pipe not escaped


def validate_sarif(log: dict) -> None:
    """Against the official schema, with the Draft 7 validator and with the Draft 4 one the file names."""
    assert SCHEMA["id"].endswith("/sarif-schema-2.1.0.json") and "2.1.0" in SCHEMA["title"]
    for validator in (jsonschema.Draft7Validator, jsonschema.Draft4Validator):
        errors = sorted(validator(SCHEMA).iter_errors(log), key=lambda e: list(e.path))
        assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def hand_built(root: Path) -> CIReport:
    """Every status and level, a file inside the root, one outside it, one unknown, hostile text."""
    outside = str(root.parent / "elsewhere" / "kern.py")
    entries = (
        Entry("mm.py:small@sm_90", "mm.py:small", "sm_90", "regressed", "ops/mm.py", 12, 1.5),
        Entry("mm.py:big@sm_90", "mm.py:big", "sm_90", "improved", "ops/mm.py", 12, 0.25),
        Entry("gone@sm_90", "gone", "sm_90", "removed"),
        Entry("broken@sm_80", "broken", "sm_80", "failed", error=f"Triton rejected it: {HOSTILE}"),
        Entry("quiet@sm_90", "quiet", "sm_90", "ok", outside, 3),
    )
    results = (
        Result("regression/spills", "error", "regressed", entries[0].key, f"spills 0 → 24 B {HOSTILE}",
               detail="more live values\nthan registers", fix="num_warps=8", file="ops/mm.py", line=40),
        Result("regression/spills", "error", "regressed", entries[0].key, f"spills 0 → 32 B {HOSTILE}",
               file="ops/mm.py", line=41),
        Result("TTI003", "warning", "finding", entries[0].key, "register spills: 24 bytes", file="ops/mm.py"),
        Result("improvement/depth", "note", "improved", entries[1].key, "pipeline depth 2 → 3",
               file="ops/mm.py", line=50),
        Result("diff/registers", "note", "neutral", entries[1].key, "registers 64 → 60"),
        Result("undescribed", "note", "removed", entries[2].key, "the example is gone"),
        Result("TTI007", "note", "finding", entries[4].key, "no TMA", file=outside, line=3),
    )
    rules = (Rule("regression/spills", "spills-went-up", "Spills went up.", "Lower the register pressure."),
             Rule("TTI003", "register-spills", "Registers spill."),
             Rule("improvement/depth", "depth-went-up", "Pipeline depth went up."),
             Rule("diff/registers", "registers", "Registers changed."),
             Rule("TTI007", "no-tma", "No TMA."))
    return CIReport("snapshot --check", entries, results, rules, "3.9.0", "0.1.0", (f"note {HOSTILE}",))


# --- SARIF ---------------------------------------------------------------------------------------------


def test_sarif_of_a_hand_built_report_is_valid_and_complete(tmp_path):
    report = hand_built(tmp_path)
    log = to_sarif(report, tmp_path)
    validate_sarif(log)
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json" and log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "ttinspect" and driver["version"] == "0.1.0" and driver["informationUri"]
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert len(rule_ids) == len(set(rule_ids)) and "undescribed" in rule_ids  # described once; none missing
    assert len(run["results"]) == len(report.results)
    for result, source in zip(run["results"], report.results, strict=True):
        assert rule_ids[result["ruleIndex"]] == result["ruleId"] == source.rule
        assert result["level"] == source.level
        assert result["message"]["text"].startswith(source.message)
        assert result["properties"]["entry"] == source.entry and result["properties"]["status"] == source.status
    first = run["results"][0]
    assert first["message"]["text"].endswith("\nFix: num_warps=8") and first["properties"]["target"] == "sm_90"
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "ops/mm.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 40}
    assert "region" not in run["results"][2]["locations"][0]["physicalLocation"]  # a file, no line
    # no file of its own: its entry's place (GitHub's upload refuses the whole file for one result without a
    # location — issue 41; this held the old shape); with no entry file either, none (snapshot/run.py places
    # those at the pyproject line that declares the kernels)
    assert run["results"][4]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "ops/mm.py", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 12}}
    assert "locations" not in run["results"][5]
    outside = run["results"][6]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert outside["uri"].startswith("file:///") and "uriBaseId" not in outside
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"
    failed = run["invocations"][0]
    assert failed["executionSuccessful"] is False
    assert "broken@sm_80" in failed["toolExecutionNotifications"][0]["message"]["text"]


def test_sarif_fingerprints_are_stable_distinct_and_ignore_numbers(tmp_path):
    report = hand_built(tmp_path)
    prints = [r["partialFingerprints"][FINGERPRINT_KEY] for r in to_sarif(report, tmp_path)["runs"][0]["results"]]
    assert prints == [r["partialFingerprints"][FINGERPRINT_KEY]
                      for r in to_sarif(report, tmp_path)["runs"][0]["results"]]
    assert len(set(prints)) == len(prints)
    # the two spill results differ only in numbers: one hash, told apart by the occurrence counter
    assert prints[0].split(":")[0] == prints[1].split(":")[0] and prints[0].endswith(":1")
    assert prints[1].endswith(":2")
    moved = CIReport("check", report.entries, (Result("TTI003", "warning", "finding", "mm.py:small@sm_90",
                                                      "register spills: 999 bytes", file="ops/mm.py", line=99),),
                     report.rules)
    assert to_sarif(moved, tmp_path)["runs"][0]["results"][0]["partialFingerprints"][FINGERPRINT_KEY] == prints[2]


def test_sarif_without_a_repository_root_writes_absolute_uris(tmp_path):
    report = hand_built(tmp_path)
    log = to_sarif(report, None)
    validate_sarif(log)
    assert "originalUriBaseIds" not in log["runs"][0]


# --- Markdown ------------------------------------------------------------------------------------------


def table_rows(markdown: str) -> list[list[str]]:
    return [CELL_SPLIT.split(line)[1:-1] for line in markdown.splitlines() if line.startswith("| ")]


def test_markdown_orders_regressions_first_and_escapes_everything(tmp_path):
    text = to_markdown(hand_built(tmp_path))
    lines = text.splitlines()
    assert lines[0].startswith("❌ **ttinspect snapshot --check**") and "2 regressions" in lines[0]
    assert TABLE_HEADER in text
    order = [text.index(f"### {title}") for title in ("Regressions", "Improvements", "Other results")]
    assert order == sorted(order)
    for row in table_rows(text):
        assert len(row) == 4, row  # a `|` in a message never makes another column
    assert "ops/mm.py:40" in text and "ops/mm.py:50" in text
    assert "&lt;d&gt; &amp; e" in text and "<d>" not in text
    assert "\\`c\\`" in text and "\\*f\\*" in text and "\\_g\\_" in text and "\\[h\\]" in text
    assert "ünïcødé → 日本" in text
    assert "\x1b" not in text and "\ufffd\\[31m" in text  # a colour code, shown as a replacement character
    assert text.count("<details>") == text.count("</details>") == 5  # one collapsed block per entry
    assert "Why: more live values<br>than registers" in text and "Fix: num\\_warps=8" in text
    summaries = re.findall(r"<summary>(.*)</summary>", text)
    assert summaries[0].startswith("mm.py:small@sm_90 — regressed, 3 results")
    assert all("\\" not in s for s in summaries)  # raw HTML: HTML escapes only, no Markdown backslashes
    assert "### Could not be checked" in text and "Triton rejected it" in text


def test_markdown_is_one_line_when_nothing_changed():
    report = CIReport("diff", (Entry("naive@sm_90 vs naive@sm_90", "naive vs naive", "sm_90", "ok"),), (), ())
    text = to_markdown(report)
    assert text.count("\n") == 1 and text.startswith("✅") and "no changes" in text


def test_markdown_caps_a_long_table_but_keeps_every_result_in_the_details():
    results = tuple(Result("diff/x", "note", "neutral", "a vs b", f"fact {i}: 1 → 2") for i in range(40))
    text = to_markdown(CIReport("diff", (Entry("a vs b", "a vs b", "sm_90", "changed"),), results, ()))
    assert len(table_rows(text)) == 1 + 25  # the header, 25 rows
    assert "15 more in the details below" in text and "fact 39: 1 → 2" in text


# --- JUnit ---------------------------------------------------------------------------------------------


def test_junit_parses_back_with_failures_skips_and_output(tmp_path):
    report = hand_built(tmp_path)
    xml = to_junit(report)
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    root = ET.fromstring(xml.encode("utf-8"))
    assert root.tag == "testsuites" and root.get("tests") == "5" and root.get("failures") == "2"
    assert root.get("skipped") == "1"
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert list(cases) == [e.key for e in report.entries]
    small = cases["mm.py:small@sm_90"]
    assert small.get("classname") == "ops/mm.py" and small.get("time") == "1.500"
    failure = small.find("failure")
    assert failure is not None and failure.get("type") == "regressed"
    assert f"spills 0 → 24 B {HOSTILE}".replace("\x1b", "\ufffd") in failure.get("message", "")
    assert "spills 0 → 32 B" in (failure.text or "")
    assert "register spills: 24 bytes" in (small.findtext("system-out") or "")  # the finding is not why it failed
    assert "Triton rejected it" in (cases["broken@sm_80"].findtext("failure") or "")
    assert cases["broken@sm_80"].get("classname") == "broken"  # no file: the kernel
    assert cases["gone@sm_90"].find("skipped") is not None and cases["gone@sm_90"].find("failure") is None
    improved = cases["mm.py:big@sm_90"]
    assert improved.find("failure") is None and "pipeline depth 2 → 3" in (improved.findtext("system-out") or "")
    assert cases["quiet@sm_90"].find("failure") is None
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["triton_version"] == "3.9.0"


def test_junit_of_nothing_is_still_a_test_report():
    root = ET.fromstring(to_junit(CIReport("check", (), (), ())).encode())
    assert root.get("tests") == "0" and root.find("testsuite") is not None


# --- from check / diff ---------------------------------------------------------------------------------


def stub_report(source: Path | None, kernel: str, label: str = "mine", target: str = "sm_90",
                device: str | None = None):
    build = SimpleNamespace(source_file=str(source) if source else None)
    return SimpleNamespace(label=label, kernel=kernel, target=target, triton_version="3.9.0", build=build,
                           device=device,
                           device_line=f"{device}: answered the code's GPU questions" if device else None)


KERNEL_FILE = '''import triton


@triton.jit(
    do_not_specialize=["n"],
)
def kern(x, n):
    pass
'''


def finding(id_="TTI003", severity="warning", python_line=None, title="register spills: 24 bytes"):
    evidence = (Evidence("cubin", None, "registers = 255"), Evidence("sass", 9, "STL", python_line))
    return Finding(id_, "register-spills", severity, title, evidence, "why it matters", "the fix")


def test_findings_become_results_pinned_to_the_evidence_or_the_def_line(tmp_path):
    source = tmp_path / "pkg" / "mine.py"
    source.parent.mkdir()
    source.write_text(KERNEL_FILE)
    report = ci_from_findings(stub_report(source, "mine.py:kern"), [finding(python_line=8), finding("TTI007", "info")],
                              tmp_path, ref="pkg/mine.py:kern")
    (entry,) = report.entries
    assert entry.key == "mine@sm_90" and entry.kernel == "pkg/mine.py:kern" and entry.status == "findings"
    assert entry.file == "pkg/mine.py" and entry.line == 7  # the `def`, not the decorator
    assert [(r.rule, r.level, r.status, r.file, r.line) for r in report.results] == [
        ("TTI003", "warning", "finding", "pkg/mine.py", 8), ("TTI007", "note", "finding", "pkg/mine.py", 7)]
    assert report.results[0].detail == "why it matters" and report.results[0].fix == "the fix"
    assert [rule.id for rule in report.rules] == ["TTI003", "TTI007"] and not report.failed
    failing = ci_from_findings(stub_report(source, "mine.py:kern"), [finding()], tmp_path, failed=True)
    assert failing.entries[0].status == "failed" and failing.failed
    clean = ci_from_findings(stub_report(None, "cache:abc"), [], tmp_path)
    assert clean.entries[0].status == "ok" and clean.entries[0].file is None and clean.entries[0].line is None


def test_paths_relative_to_the_repository_root(tmp_path, monkeypatch):
    inside = tmp_path / "repo" / "a" / "k.py"
    inside.parent.mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    assert relative_file(inside, tmp_path / "repo") == "a/k.py"
    assert relative_file("/elsewhere/k.py", tmp_path / "repo") == "/elsewhere/k.py"
    assert relative_file(None, tmp_path) is None
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    assert find_repo_root(inside.parent) == (tmp_path / "repo").resolve()
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    assert find_repo_root(inside.parent) == tmp_path.resolve()
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    assert def_line_of(str(fifo), "fifo.py:kern") is None  # never opened: it would hang
    assert def_line_of(str(tmp_path / "missing.py"), "missing.py:kern") is None


def test_a_diff_becomes_neutral_notes():
    a, b = stub_report(None, "m:naive", "naive"), stub_report(None, "m:opt", "opt")
    changes = (Change("registers", "registers per thread", "resources", 59, 64, "more live values"),
               Change("spills", "spill stores", "resources", 0, 8, "spills appeared"))
    report = ci_from_diff(SimpleNamespace(a=a, b=b, changes=changes, one_side=((), ())), None)
    (entry,) = report.entries
    assert entry.key == "naive@sm_90 vs opt@sm_90" and entry.status == "changed" and not entry.failed
    assert [(r.rule, r.level, r.status, r.message, r.detail) for r in report.results] == [
        ("diff/registers", "note", "neutral", "registers per thread: 59 → 64", "more live values"),
        ("diff/spills", "note", "neutral", "spill stores: 0 → 8", "spills appeared")]
    validate_sarif(to_sarif(report, None))


# --- writing -------------------------------------------------------------------------------------------


def test_output_is_checked_before_any_work_and_written_atomically(tmp_path):
    report = hand_built(tmp_path)
    out = tmp_path / "out.sarif"
    assert check_format_and_output("sarif", None, False) is None
    assert check_format_and_output("sarif", str(out), False) == out
    emit(report, "sarif", str(out), False, tmp_path)
    validate_sarif(json.loads(out.read_text(encoding="utf-8")))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.sarif"]  # no temporary file left beside it
    with pytest.raises(UsageError, match="already exists"):
        check_format_and_output("markdown", str(out), False)
    link = tmp_path / "link.md"
    link.symlink_to(out)
    with pytest.raises(UsageError, match="symbolic link"):
        check_format_and_output("markdown", str(link), True)
    with pytest.raises(UsageError, match="terminal"):
        check_format_and_output("text", str(tmp_path / "new.txt"), False)
    with pytest.raises(UsageError, match="unknown format"):
        check_format_and_output("html", None, False)


# --- the CLI -------------------------------------------------------------------------------------------


@pytest.fixture
def in_repo(monkeypatch):
    """Paths relative to this checkout, as on GitHub Actions."""
    monkeypatch.setenv("GITHUB_WORKSPACE", str(ROOT))


def kernel_uri(name: str) -> str:
    import ttinspect_kernels

    path = Path(ttinspect_kernels.__file__).resolve().parent / f"{name}.py"
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.as_uri()


COMMANDS = {"check tileon": ("check", "tileon", "--arch", "sm_90"),
            "diff naive opt": ("diff", "naive", "opt", "--arch", "sm_90")}


@pytest.mark.parametrize("command", COMMANDS)
def test_sarif_from_the_cli_validates_and_points_at_the_kernel(command, in_repo):
    result = run_cli(*COMMANDS[command], "--format", "sarif")
    assert result.exit_code == 0, result.output
    log = json.loads(result.stdout)
    validate_sarif(log)
    results = log["runs"][0]["results"]
    assert results
    uri = kernel_uri("tileon" if command.startswith("check") else "doc003")
    for item in results:
        physical = item["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == uri
        assert isinstance(physical["region"]["startLine"], int) and physical["region"]["startLine"] > 0
    if command.startswith("check"):
        spills = [r for r in results if r["ruleId"] == "TTI003"]
        assert spills and spills[0]["level"] == "warning" and "spill" in spills[0]["message"]["text"]
        assert "Fix: " in spills[0]["message"]["text"]
    again = json.loads(run_cli(*COMMANDS[command], "--format", "sarif").stdout)
    assert ([r["partialFingerprints"] for r in again["runs"][0]["results"]]
            == [r["partialFingerprints"] for r in results])


@pytest.mark.parametrize("command", COMMANDS)
def test_markdown_from_the_cli(command, in_repo):
    result = run_cli(*COMMANDS[command], "--format", "markdown")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert TABLE_HEADER in text and "<details>" in text
    if command.startswith("check"):
        assert text.startswith("⚠️ **ttinspect check** — tileon@sm\\_90") and "register spills" in text
        assert f"{kernel_uri('tileon')}:" in text
    else:
        assert "naive@sm\\_90 vs opt@sm\\_90" in text and "registers per thread" in text
    for row in table_rows(text):
        assert len(row) == 4, row


@pytest.mark.parametrize("fail_on, exit_code, failures", [(None, 0, 0), ("warning", 1, 1), ("error", 0, 0)])
def test_junit_from_check_fails_exactly_when_the_command_does(fail_on, exit_code, failures, in_repo):
    extra = ("--fail-on", fail_on) if fail_on else ()
    result = run_cli(*COMMANDS["check tileon"], "--format", "junit", *extra)
    assert result.exit_code == exit_code, result.output
    root = ET.fromstring(result.stdout.encode())
    (case,) = root.iter("testcase")
    assert case.get("name") == "tileon@sm_90" and root.get("failures") == str(failures)
    assert (case.find("failure") is not None) == bool(failures)
    text = case.findtext("failure" if failures else "system-out") or ""
    assert "TTI003" in text and "register spills" in text
    assert "TTI007" in (case.findtext("system-out") or "")  # an info finding never fails the gate


def test_junit_from_diff_has_one_passing_testcase(in_repo):
    result = run_cli(*COMMANDS["diff naive opt"], "--format", "junit")
    assert result.exit_code == 0, result.output
    (case,) = ET.fromstring(result.stdout.encode()).iter("testcase")
    assert case.find("failure") is None and "num_stages (configured): 3 → 4" in (case.findtext("system-out") or "")


@pytest.mark.parametrize("command", COMMANDS)
def test_json_flag_is_format_json_and_writes_to_o(command, tmp_path):
    plain = run_cli(*COMMANDS[command], "--json")
    assert plain.exit_code == 0
    assert run_cli(*COMMANDS[command], "--format", "json").stdout == plain.stdout
    out = tmp_path / "out.json"
    assert run_cli(*COMMANDS[command], "--json", "-o", out).exit_code == 0
    assert out.read_text() == plain.stdout


@pytest.mark.parametrize("fmt", ["sarif", "markdown", "junit"])
def test_o_writes_the_file_refuses_to_replace_it_and_never_follows_a_link(fmt, tmp_path, in_repo):
    out = tmp_path / f"report.{fmt}"
    first = run_cli(*COMMANDS["check tileon"], "--format", fmt, "-o", out)
    assert first.exit_code == 0 and first.stdout == ""
    written = out.read_text(encoding="utf-8")
    timeless = re.compile(r' time="[0-9.]+"')  # JUnit's timings differ from run to run
    assert timeless.sub("", written) == timeless.sub("", run_cli(*COMMANDS["check tileon"], "--format", fmt).stdout)
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]
    # the path is checked before anything compiles: a bad reference is not even looked at
    again = run_cli("check", "no-such-variant", "--format", fmt, "-o", out)
    assert again.exit_code == 2 and "already exists" in again.stderr and "--force" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1
    assert run_cli(*COMMANDS["check tileon"], "--format", fmt, "-o", out, "--force").exit_code == 0
    link = tmp_path / "link"
    link.symlink_to(out)
    refused = run_cli(*COMMANDS["diff naive opt"], "--format", fmt, "-o", link, "--force")
    assert refused.exit_code == 2 and "symbolic link" in refused.stderr
    assert link.is_symlink() and timeless.sub("", out.read_text(encoding="utf-8")) == timeless.sub("", written)


@pytest.mark.parametrize("args, message", [
    (("check", "opt", "--format", "yaml"), "yaml"),
    (("diff", "naive", "opt", "--format", "html"), "html"),
    (("check", "opt", "--json", "--format", "sarif"), "disagree"),
    (("diff", "naive", "opt", "--format", "sarif", "--stage", "ptx"), "--stage"),
    (("check", "opt", "-o", "{tmp}/x.txt"), "terminal"),
    (("check", "opt", "--format", "sarif", "-o", "{tmp}/no/such/folder/x.sarif"), "does not exist"),
    (("check", "no-such-variant", "--format", "junit", "-o", "{tmp}/x.xml"), "no-such-variant"),
])
def test_bad_formats_and_outputs_are_one_line_exit_2(args, message, tmp_path):
    result = run_cli(*(a.format(tmp=tmp_path) for a in args))
    assert result.exit_code == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert list(tmp_path.iterdir()) == []


def test_check_exit_codes_are_unchanged_by_the_format(in_repo):
    assert run_cli(*COMMANDS["check tileon"], "--format", "sarif", "--fail-on", "warning").exit_code == 1
    assert run_cli(*COMMANDS["check tileon"], "--format", "markdown", "--fail-on", "error").exit_code == 0
    assert run_cli("check", "opt", "--arch", "sm_90", "--format", "sarif", "--fail-on", "warning").exit_code == 0

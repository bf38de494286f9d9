"""A CIReport as JUnit XML: the test report every CI system reads (GitLab, Jenkins, Azure, GitHub's
test-report actions). One testcase per entry — a kernel × example × target — so a failed gate shows as
a failed test with its reasons:

- a failed entry (regressed, or failed: could not be compiled, or --fail-on hit) gets a <failure>
  holding the results that failed it;
- a removed entry is <skipped> (it no longer exists to be tested);
- every other result goes to the testcase's <system-out>, so nothing is lost.

Built with xml.etree, which escapes `<`, `&` and quotes; characters XML 1.0 cannot hold at all (control
characters from a compiler's output) are replaced first, or the file would not parse.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ttinspect.ci.model import ERROR, REGRESSED, CIReport, Entry, Result

# XML 1.0 allows tab, newline, carriage return and nothing else below U+0020; nor surrogates, U+FFFE/F.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def to_junit(report: CIReport) -> str:
    name = f"ttinspect {report.command}"
    suites = ET.Element("testsuites", name=_xml(name))
    suite = ET.SubElement(suites, "testsuite", name=_xml(name))
    properties = ET.SubElement(suite, "properties")
    for key, value in (("triton_version", report.triton_version), ("ttinspect_version", report.ttinspect_version),
                       *(("note", note) for note in report.notes)):
        if value:
            ET.SubElement(properties, "property", name=key, value=_xml(value))
    failures = skipped = 0
    total = 0.0
    for entry in report.entries:
        failed, skip = _testcase(suite, entry, report.results_of(entry.key))
        failures += failed
        skipped += skip
        total += entry.seconds or 0.0
    for element in (suites, suite):
        element.set("tests", str(len(report.entries)))
        element.set("failures", str(failures))
        element.set("errors", "0")  # an entry that could not be compiled is a failure of the gate, not of ttinspect
        element.set("skipped", str(skipped))
        element.set("time", f"{total:.3f}")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _testcase(suite: ET.Element, entry: Entry, results: tuple[Result, ...]) -> tuple[int, int]:
    """Adds the entry's testcase; (1 if it failed, 1 if it was skipped)."""
    case = ET.SubElement(suite, "testcase", classname=_xml(entry.file or entry.kernel), name=_xml(entry.key))
    if entry.seconds is not None:
        case.set("time", f"{entry.seconds:.3f}")
    if entry.file and entry.line:
        case.set("file", _xml(entry.file))
        case.set("line", str(entry.line))
    reported: tuple[Result, ...] = ()
    if entry.failed:
        # the results that failed it: its regressions and errors; where there are none (check --fail-on hit
        # by findings) its warnings and errors, else all of them; the rest go to system-out
        reported = (tuple(r for r in results if r.status in (REGRESSED, ERROR))
                    or tuple(r for r in results if r.level in ("error", "warning")) or results)
        lines = ([f"could not be checked: {entry.error}"] if entry.error else []) + [_line(r) for r in reported]
        failure = ET.SubElement(case, "failure", type=_xml(entry.status),
                                message=_xml("; ".join(r.message for r in reported) or entry.error
                                             or entry.status))
        failure.text = _xml("\n".join(lines) or entry.status)
    elif entry.status == "removed":
        ET.SubElement(case, "skipped", message=_xml(f"{entry.key} was removed"))
    rest = [r for r in results if r not in reported]
    if rest:
        out = ET.SubElement(case, "system-out")
        out.text = _xml("\n".join(_line(r) for r in rest))
    return int(entry.failed), int(not entry.failed and entry.status == "removed")


def _line(result: Result) -> str:
    where = f" ({result.file}:{result.line})" if result.file and result.line else f" ({result.file})" \
        if result.file else ""
    text = f"{result.level.upper()} {result.rule} [{result.status}]: {result.message}{where}"
    if result.detail:
        text += f"\n    why: {result.detail}"
    if result.fix:
        text += f"\n    fix: {result.fix}"
    if result.suppressed:
        text += f"\n    allowed: {result.suppressed}"
    return text


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)

"""A CIReport as SARIF 2.1.0: what GitHub code scanning (and other SARIF viewers) show as annotations on
the kernel's source lines.

Locations: GitHub's upload refuses a whole file for one result without a location, so a result without a
file of its own is placed at its entry's (producers place the rest: snapshot/run.py at the pyproject line
that declares the kernels).

Paths: a result's file relative to the repository root is written against the base id `%SRCROOT%` (what
code scanning resolves against the checkout); a file outside it (an installed package) as an absolute
`file:` URI. Fingerprints: code scanning matches a result with the same one of an earlier run by
`partialFingerprints`, so they hash what stays when the code around it moves — the rule, the entry and
the message with its numbers taken out — plus a counter among results that hash alike, never a line.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from ttinspect.ci.model import CIReport, Entry, Result, Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/ttinspect/"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "ttinspect/v1"  # bump the suffix if what is hashed changes: old results then close

_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def to_sarif(report: CIReport, repo_root: Path | None) -> dict[str, Any]:
    rules = list(report.rules)
    index = {rule.id: i for i, rule in enumerate(rules)}
    for result in report.results:  # a result citing a rule nobody described still gets one (ruleIndex)
        if result.rule not in index:
            index[result.rule] = len(rules)
            rules.append(Rule(id=result.rule, name=result.rule, summary=result.rule))
    targets = {entry.key: entry.target for entry in report.entries}
    places = {entry.key: (entry.file, entry.line) for entry in report.entries if entry.file}
    seen: dict[str, int] = {}
    results = []
    for result in report.results:
        if not result.file and result.entry in places:  # code scanning rejects a result without a location
            result = replace(result, file=places[result.entry][0], line=places[result.entry][1])
        digest = _fingerprint(result)
        seen[digest] = seen.get(digest, 0) + 1
        results.append(_result(result, index[result.rule], f"{digest}:{seen[digest]}", targets.get(result.entry),
                               repo_root))
    driver: dict[str, Any] = {"name": "ttinspect", "informationUri": INFORMATION_URI,
                              "rules": [_rule(rule) for rule in rules]}
    if report.ttinspect_version:
        driver["version"] = report.ttinspect_version
        driver["semanticVersion"] = report.ttinspect_version
    run: dict[str, Any] = {"tool": {"driver": driver}, "invocations": [_invocation(report)], "results": results,
                           "columnKind": "unicodeCodePoints",
                           "properties": {"command": report.command, "triton_version": report.triton_version,
                                          "entries": [_entry(e, repo_root) for e in report.entries],
                                          "notes": list(report.notes)}}
    if repo_root is not None:
        run["originalUriBaseIds"] = {SRCROOT: {"uri": _folder_uri(repo_root)}}
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _entry(entry: Entry, repo_root: Path | None) -> dict[str, Any]:
    """Without its timing: two runs over the same code give the same SARIF file (JUnit keeps the times); its file
    as its results name it (relative to the repository's root), never the runner's absolute path."""
    shown = {k: v for k, v in entry.as_dict().items() if k != "seconds"}
    if entry.file and Path(entry.file).is_absolute() and repo_root is not None:
        try:
            shown["file"] = Path(entry.file).resolve().relative_to(Path(repo_root).resolve()).as_posix()
        except (ValueError, OSError):  # outside the repository (an installed package): as it is
            pass
    return shown


def _rule(rule: Rule) -> dict[str, Any]:
    full = rule.help or rule.summary
    return {"id": rule.id, "name": rule.name, "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": full}, "help": {"text": full}}


def _result(result: Result, rule_index: int, fingerprint: str, target: str | None,
            repo_root: Path | None) -> dict[str, Any]:
    text = result.message + (f"\nFix: {result.fix}" if result.fix else "")
    out: dict[str, Any] = {"ruleId": result.rule, "ruleIndex": rule_index, "level": result.level,
                           "message": {"text": text}, "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
                           "properties": {"entry": result.entry, "status": result.status, "target": target,
                                          "detail": result.detail}}
    if result.suppressed:  # an allow entry of [tool.ttinspect]: code scanning shows it as dismissed, with why
        out["suppressions"] = [{"kind": "external", "status": "accepted", "justification": result.suppressed}]
    location = _location(result, repo_root)
    if location is not None:
        out["locations"] = [location]
    return out


def _location(result: Result, repo_root: Path | None) -> dict[str, Any] | None:
    if not result.file:
        return None
    artifact = _artifact(result.file, repo_root)
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if result.line is not None and result.line >= 1:
        physical["region"] = {"startLine": result.line}
    return {"physicalLocation": physical}


def _artifact(file: str, repo_root: Path | None) -> dict[str, Any]:
    """A relative path against %SRCROOT%; an absolute one made relative when it lies under `repo_root`,
    else written as a `file:` URI (code scanning cannot place it, a local viewer can)."""
    path = Path(file)
    if path.is_absolute() and repo_root is not None:
        try:
            path = path.resolve().relative_to(Path(repo_root).resolve())
        except (ValueError, OSError):
            pass
    if path.is_absolute():
        return {"uri": path.as_uri()}
    return {"uri": quote(PurePosixPath(*path.parts).as_posix()), "uriBaseId": SRCROOT}


def _folder_uri(folder: Path) -> str:
    uri = Path(folder).resolve().as_uri()
    return uri if uri.endswith("/") else uri + "/"  # SARIF: a base URI must end with a slash


def _fingerprint(result: Result) -> str:
    stable = "\0".join((result.rule, result.entry, _NUMBER.sub("#", result.message)))
    return hashlib.sha256(stable.encode()).hexdigest()[:32]


def _invocation(report: CIReport) -> dict[str, Any]:
    """Whether every entry could be compiled or read; those that could not, as notifications (they have
    no results to carry their reason)."""
    failures = [entry for entry in report.entries if entry.error]
    invocation: dict[str, Any] = {"executionSuccessful": not failures and not report.stopped}
    if failures:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": f"{entry.key}: {entry.error}"}} for entry in failures]
    if report.stopped:  # a run that stopped on bad input (exit 2): the reason, with what it names
        invocation["toolExecutionNotifications"] = [{"level": "error", "message": {"text": report.stopped}}]
    return invocation

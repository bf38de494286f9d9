"""What the gate says about the snapshot as a whole: that it was made with another Triton release than this
run compiles with (the facts then differ for a reason no kernel edit explains), and, with `strict = true`, that
it no longer matches the library (an entry it lacks, one it holds that is gone or stale) — insta's and syrupy's
discipline: every difference is accepted on purpose, with `--update`.

Each is one entry of its own in the report, so every format shows it (a JUnit test case, a SARIF result at the
snapshot's or the pyproject's line), and it fails the gate where the configuration says so.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from ttinspect.ci.model import IMPROVED, NEUTRAL, NEW, REGRESSED, REMOVED, CIReport, Entry, Result, Rule

RELEASE_KEY = "(triton release)"
RELEASE_RULE = Rule("snapshot/triton-release", "triton-release-changed",
                    "The snapshot was made with another Triton release",
                    "Compile with the release the snapshot was made with (pin it: docs/ci.md), or accept the new "
                    "release's facts with `ttinspect snapshot --check --update` and commit the snapshot.")
STRICT_RULE = Rule("snapshot/stale", "snapshot-stale", "strict = true: the snapshot does not match the library",
                   "Review the change, then `ttinspect snapshot --check --update [ENTRY...]` and commit the snapshot.")
# What strict mode fails on: every difference between the snapshot and the library.
_DIFFERENT = (NEW, REMOVED, NEUTRAL, IMPROVED)


def release_change(report: CIReport, committed: dict[str, Any], compiled: str, config) -> CIReport:
    """An entry saying the snapshot's Triton release differs from the one this run compiled with (nothing when they
    agree, or when either is unknown); it fails the gate unless release-change = "warn"."""
    recorded = str(committed.get("triton_version") or "")
    if not recorded or not compiled or recorded == compiled:
        return report
    failing = config.release_change == "fail"
    where = os.path.relpath(config.snapshot, config.root).replace(os.sep, "/")  # library-relative, as entries' files
    line = _line_of_release(config.snapshot)
    text = (f"the snapshot was made with Triton {recorded}; this run compiled with Triton {compiled}: every fact "
            "may differ for that reason alone" + ("" if failing else " (release-change = \"warn\")"))
    result = Result(RELEASE_RULE.id, "error" if failing else "warning", REGRESSED if failing else NEUTRAL,
                    RELEASE_KEY, text, fix=RELEASE_RULE.help, file=where, line=line)
    entry = Entry(RELEASE_KEY, f"Triton {recorded} → {compiled}", "", "regressed" if failing else "changed",
                  where, line)
    return replace(report, entries=(entry, *report.entries), results=(result, *report.results),
                   rules=(RELEASE_RULE, *report.rules))


def _line_of_release(path) -> int | None:
    from ttinspect.files.source_files import read_regular  # only when the releases differ

    data = read_regular(path)
    if data is None:
        return None
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        if line.strip().startswith('"triton_version"'):
            return number
    return None


def strict_results(report: CIReport) -> CIReport:
    """strict = true: an entry the snapshot lacks (new), one it holds that is gone (removed), or one whose facts
    or findings changed in any way (stale) fails the gate, with one result saying which and how to accept it."""
    results = list(report.results)
    entries = []
    for entry in report.entries:
        own = [r for r in report.results if r.entry == entry.key]
        if entry.failed or not any(r.status in _DIFFERENT for r in own):
            entries.append(entry)
            continue
        what = ("is not in the snapshot" if entry.status == "new" else "is in the snapshot but no longer in the "
                "library" if entry.status == "removed" else
                f"no longer matches the snapshot ({sum(r.status in _DIFFERENT for r in own)} difference(s))")
        # at the line that changed its first difference (snapshot/origin.py), else its def: inside the diff
        placed = next((r for r in own if r.status in _DIFFERENT and r.file and r.line), None)
        file, line = (placed.file, placed.line) if placed else (entry.file, entry.line)
        results.append(Result(STRICT_RULE.id, "error", REGRESSED, entry.key, f"strict: {entry.key} {what}",
                              fix=STRICT_RULE.help, file=file, line=line))
        entries.append(replace(entry, status="regressed"))
    rules = report.rules if len(results) == len(report.results) else (*report.rules, STRICT_RULE)
    return replace(report, entries=tuple(entries), results=tuple(results), rules=rules)


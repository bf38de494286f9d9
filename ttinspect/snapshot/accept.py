"""`snapshot --check --update [ENTRY...]`: which entries are accepted, and the report once they are — their
regressions and changes are in the snapshot now, so they fail nothing, and every format says they were accepted
(a suppressed result whose reason is the acceptance). A kernel that no longer compiles is never accepted: its
committed entry is kept, and it still fails the gate.
"""

from __future__ import annotations

import fnmatch
from dataclasses import replace

from ttinspect.ci.model import ERROR, REGRESSED, SUPPRESSED, CIReport
from ttinspect.errors import UsageError
from ttinspect.snapshot.strictness import RELEASE_KEY

ACCEPTED = "accepted by `snapshot --check --update`"


def selected_keys(report: CIReport, selectors: tuple[str, ...]) -> set[str]:
    """The entry keys to accept: those the selectors (keys or globs) match, or every entry when none is given. A
    selector that matches no entry is refused in one line (a typo would accept nothing and say nothing)."""
    keys = [e.key for e in report.entries if e.key != RELEASE_KEY]
    if not selectors:
        return set(keys)
    chosen: set[str] = set()
    for selector in selectors:
        matched = {key for key in keys if fnmatch.fnmatchcase(key, selector)}
        if not matched:
            raise UsageError(f"--update {selector[:80]!r}: no entry of this run matches it (FILE:EXAMPLE@TARGET; a "
                             "glob such as 'mylib/ops/mm.py:*@sm_90' may stand for several)")
        chosen |= matched
    return chosen


def accepted(report: CIReport, chosen: set[str]) -> CIReport:
    """The report after the chosen entries were written: their regressions suppressed as accepted (a kernel that
    failed stays failed), their status no longer failing; the release change accepted with every entry."""
    every = {e.key for e in report.entries if e.key != RELEASE_KEY} <= chosen
    take = chosen | ({RELEASE_KEY} if every else set())
    results = tuple(replace(r, status=SUPPRESSED, suppressed=ACCEPTED)
                    if r.entry in take and r.status == REGRESSED else r for r in report.results)
    entries = []
    for entry in report.entries:
        failing = any(r.entry == entry.key and r.status in (REGRESSED, ERROR) for r in results)
        entries.append(replace(entry, status="changed") if entry.status == "regressed" and not failing else entry)
    return replace(report, results=results, entries=tuple(entries))

"""`snapshot --check` on a terminal: the verdict first, then regressions, improvements and the rest, one line
each with the kernel's file:line and diff's explanation indented under it, wrapped to the terminal's width
(render/term.py) at word boundaries: a CI log keeps every word."""

from __future__ import annotations

import click

from ttinspect.ci.model import ERROR, FINDING, IMPROVED, NEUTRAL, NEW, REGRESSED, REMOVED, SUPPRESSED, CIReport
from ttinspect.files.terminal_text import shown
from ttinspect.render import fit, term

_ORDER = ((REGRESSED, "regressed"), (ERROR, "no longer compiles"), (SUPPRESSED, "accepted or allowed"),
          (IMPROVED, "improved"), (NEW, "new"),
          (REMOVED, "removed"), (FINDING, "new findings below fail-on"), (NEUTRAL, "changed"))


def verdict(report: CIReport) -> str:
    failing = [e for e in report.entries if e.failed]
    changed = [e for e in report.entries if e.status != "ok"]
    allowed = sum(1 for r in report.results if r.status == SUPPRESSED)
    also = f" ({allowed} regression{'s' * (allowed != 1)} accepted or allowed)" if allowed else ""
    if failing:
        return f"FAIL: {len(failing)} of {len(report.entries)} entries regressed or no longer compile{also}"
    if changed:
        return f"ok: {len(report.entries)} entries, {len(changed)} changed, none regressed{also}"
    return f"ok: {len(report.entries)} entries, nothing changed"


def snapshot_text(report: CIReport, seconds: float) -> None:
    width = term.width()

    def say(text: str, indent: str = "", subsequent: str = "") -> None:
        click.echo("\n".join(fit.wrap(text, width, indent=indent, subsequent=subsequent or indent + "  ")))

    say(f"{verdict(report)} ({seconds:.1f} s)")
    for status, heading in _ORDER:
        results = [r for r in report.results if r.status == status]
        if not results:
            continue
        say(f"{heading}:")
        for result in results:
            where = f" ({result.file}:{result.line})" if result.file and result.line else ""
            # a snapshot file may come from someone else: what it names is quoted (files/terminal_text.py)
            say(shown(f"{result.entry}: {result.message}{where}"), "  ", "      ")
            if result.detail and result.detail != result.message:
                say(shown(result.detail), "      ", "      ")
            if result.fix and status != SUPPRESSED:
                say(shown(f"fix: {result.fix}"), "      ", "        ")
            if result.suppressed:
                say(shown(f"why it passes: {result.suppressed}"), "      ", "        ")
    for note in report.notes:
        say(shown(f"note: {note}"))

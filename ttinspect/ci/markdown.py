"""A CIReport as GitHub-flavoured Markdown, for a pull-request comment or $GITHUB_STEP_SUMMARY.

The order is what a reviewer needs first: one verdict line; the regressions, then the improvements, then
every other result, each in a short table (entry, level, what, where); then one collapsed `<details>` per
entry with every result's explanation and fix. With no results it is the verdict line alone.

Every text from a kernel or a compiler is escaped: `|` would split a table cell, a backtick or `*` would
start code or emphasis, and `<`, `>`, `&` would be read as HTML (GitHub drops tags it does not allow).
"""

from __future__ import annotations

import re

from ttinspect.ci.model import (ERROR, IMPROVED, NEUTRAL, REGRESSED, SUPPRESSED, CIReport, Entry, Result,
                                across_targets)

TABLE_HEADER = "| entry | level | what | where |\n|---|---|---|---|"
MAX_ROWS = 25  # per table: a comment stays readable; the details below list everything
_LEVEL_MARK = {"error": "🔴 error", "warning": "🟡 warning", "note": "🔵 note"}

# Markdown's own punctuation, backslash-escaped (GFM allows it before any ASCII punctuation).
_MARKDOWN = re.compile(r"([\\`*_\[\]|~#])")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def to_markdown(report: CIReport) -> str:
    lines = [_verdict(report)]
    if report.stopped:
        lines += ["", f"**Stopped before checking:** {escape(report.stopped)}"]
    if not report.results and not report.notes and not any(e.error for e in report.entries):
        return "\n".join(lines) + "\n"
    regressed = [r for r in report.results if r.status in (REGRESSED, ERROR)]
    improved = [r for r in report.results if r.status == IMPROVED]
    suppressed = [r for r in report.results if r.status == SUPPRESSED]
    others = [r for r in report.results if r.status not in (REGRESSED, ERROR, IMPROVED, SUPPRESSED)]
    quiet = [] if report.all_rows else [r for r in others if r.status == NEUTRAL]
    others = [r for r in others if r not in quiet]
    for title, results in (("Regressions", regressed), ("Improvements", improved), (_others_title(report), others),
                           ("Suppressed", suppressed)):
        if results:
            lines += ["", f"### {title} ({len(results)})", "", *_table(results)]
    if quiet:  # a config edit moves a dozen facts nobody guards: counted here, each in the details below
        lines += ["", f"{len(quiet)} neutral change{'s' * (len(quiet) != 1)} (facts not guarded) in the details "
                      "below; `--neutral` lists them here."]
    said = {(r.entry, r.message) for r in regressed}
    errors = [e for e in report.entries if e.error and (e.key, e.error) not in said]  # each error said once
    if errors:
        lines += ["", "### Could not be checked", ""]
        lines += [f"- {escape(e.key)}: {escape(e.error or '')}" for e in errors]
    if report.notes:
        lines += [""] + [f"> {escape(note)}" for note in report.notes]
    for entry in report.entries:  # an entry with nothing to say gets no block: 800 unchanged kernels stay short
        own = report.results_of(entry.key)
        if own and all(r in regressed and r.status == ERROR and not r.detail and not r.fix for r in own):
            continue  # its error, whole, is a row of the table above: said once
        if own or entry.error:
            lines += ["", *_details(entry, own, (entry.key, entry.error) not in said)]
    return "\n".join(lines) + "\n"


def escape(text: str) -> str:
    """Plain text that Markdown and GitHub's HTML shows as written, on one line."""
    return _MARKDOWN.sub(r"\\\1", _html(text))


def _html(text: str) -> str:
    """For inside an HTML block (`<summary>`), where Markdown is not read: HTML escapes only; control
    characters (a compiler's colour codes) become U+FFFD, as a browser would show nothing useful."""
    text = _CONTROL.sub("\ufffd", text)
    return " ".join(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").split())


def _escape_lines(text: str) -> str:
    """Like escape, keeping line breaks (as <br>) for a multi-line explanation."""
    return "<br>".join(escape(line) for line in text.splitlines() if line.strip())


def _verdict(report: CIReport) -> str:
    counts = _counts(report)
    entries = len(report.entries)
    scope = f"{entries} {'entry' if entries == 1 else 'entries'}"
    if len(report.entries) == 1:
        scope = escape(report.entries[0].key)
    if report.failed:
        mark = "❌"
    elif any(r.level in ("error", "warning") for r in report.results) or any(e.error for e in report.entries):
        mark = "⚠️"
    else:
        mark = "✅"
    said = ", ".join(counts) if counts else ("no findings" if report.command == "check" else "no changes")
    return f"{mark} **ttinspect {escape(report.command)}** — {scope}: {said}"


def _counts(report: CIReport) -> list[str]:
    """What the results are, by status, biggest news first: "1 regression, 2 improvements, 3 findings"."""
    words = (("regressed", "regression", "regressions"), ("error", "error", "errors"),
             ("suppressed", "suppressed", "suppressed"),
             ("improved", "improvement", "improvements"), ("finding", "finding", "findings"),
             ("neutral", "change", "changes"), ("new", "new result", "new results"),
             ("removed", "removed", "removed"))
    out = []
    for status, one, many in words:
        count = sum(1 for r in report.results if r.status == status)
        if count:
            out.append(f"{count} {one if count == 1 else many}")
    failed = sum(1 for e in report.entries if e.failed)
    if failed and len(report.entries) > 1:
        out.append(f"{failed} of {len(report.entries)} entries failed")
    return out


def _others_title(report: CIReport) -> str:
    return {"check": "Findings", "diff": "Changes"}.get(report.command, "Other results")


def _table(results: list[Result]) -> list[str]:
    rows = [TABLE_HEADER]
    merged = across_targets(results)
    for label, r in merged[:MAX_ROWS]:
        rows.append(f"| {escape(label)} | {_LEVEL_MARK.get(r.level, escape(r.level))} | "
                    f"{escape(r.message)} | {escape(_where(r))} |")
    if len(merged) > MAX_ROWS:
        rows.append(f"\n…and {len(merged) - MAX_ROWS} more in the details below.")
    return rows


def _where(result: Result) -> str:
    if not result.file:
        return "—"
    return f"{result.file}:{result.line}" if result.line is not None else result.file


def _details(entry: Entry, results: tuple[Result, ...], with_error: bool = True) -> list[str]:
    """One collapsed block: the summary is HTML (escaped as such), the body Markdown, which GitHub renders
    only after a blank line."""
    where = f" · {entry.file}:{entry.line}" if entry.file and entry.line else f" · {entry.file}" if entry.file else ""
    count = f"{len(results)} result{'s' * (len(results) != 1)}"
    summary = f"{entry.key} — {entry.status}, {count}{where}"
    lines = ["<details>", f"<summary>{_html(summary)}</summary>", ""]
    if entry.error and with_error:
        lines += [f"**Could not be checked:** {escape(entry.error)}", ""]
    for r in results:
        kind = r.status if r.status == r.level else f"{r.status}, {r.level}"  # never "(error, error)"
        lines.append(f"- **{escape(r.rule)}** ({escape(kind)}) {escape(r.message)}"
                     + (f" — {escape(_where(r))}" if r.file else ""))
        if r.suppressed:
            lines.append(f"  <br>Allowed: {_escape_lines(r.suppressed)}")
        if r.detail:
            lines.append(f"  <br>Why: {_escape_lines(r.detail)}")
        if r.fix:
            lines.append(f"  <br>Fix: {_escape_lines(r.fix)}")
    if not results and not entry.error:
        lines.append("Nothing to report.")
    lines += ["", "</details>"]
    return lines

"""`ttinspect check` on a terminal: one block per finding — severity, id, title, the evidence lines with
their Python line, why, the fix. Rich is imported only here.

Width: the terminal's, or `COLUMNS` when set (also when piped); a pipe without `COLUMNS` gets 160. Title,
why and fix are wrapped to it with a hanging indent; an evidence line longer than the width is cut with
"…" (its stage:line and Python line are kept). `NO_COLOR` (any non-empty value, no-color.org) turns off
every style, bold and dim included — not only colors."""

from __future__ import annotations

import os
import sys
import textwrap

from rich.markup import escape

_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold cyan"}
_PIPE_WIDTH = 160


def _width() -> int:
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) >= 40:
        return int(columns)
    if sys.stdout.isatty():
        try:
            return max(40, os.get_terminal_size(sys.stdout.fileno()).columns)
        except OSError:
            pass
    return _PIPE_WIDTH


def _console(width: int):
    from rich.console import Console

    plain = bool(os.environ.get("NO_COLOR"))
    return Console(highlight=False, width=width, color_system=None if plain else "auto",
                   no_color=plain, force_terminal=None if not plain else False)


def _wrapped(label: str, text: str, width: int, indent: int) -> list[str]:
    """`label` + text wrapped to width, continuation lines indented by `indent`."""
    return textwrap.wrap(text, width=width, initial_indent=" " * len(label), subsequent_indent=" " * indent,
                         break_long_words=False, break_on_hyphens=False) or [" " * len(label)]


def _cut(text: str, room: int) -> str:
    return text if len(text) <= room else text[:max(1, room - 1)] + "…"


def findings_view(report, findings, hidden: int, min_severity: str) -> None:
    width = _width()
    console = _console(width)

    def out(markup: str) -> None:
        console.print(markup, soft_wrap=True)

    out(f"[bold]ttinspect check[/bold]: {escape(report.label)} on {report.target} "
        f"(Triton {report.triton_version})")
    if not findings:
        more = f" ({hidden} below {min_severity} not shown)" if hidden else ""
        out(f"no findings{more}")
        return
    for finding in findings:
        style = _STYLE.get(finding.severity, "bold")
        out("")
        head = f"{finding.severity.upper()} {finding.id} {finding.slug}: "
        lines = _wrapped(head, finding.title, width, 4)
        out(f"[{style}]{finding.severity.upper()}[/] [bold]{finding.id}[/bold] {finding.slug}: "
            f"{escape(lines[0][len(head):])}")
        for line in lines[1:]:
            out(escape(line))
        for e in finding.evidence:
            where = f"{e.stage}:{e.line}" if e.line is not None else e.stage
            python = f"  ← line {e.python_line}" if e.python_line is not None else ""
            room = width - 4 - len(where) - 2 - len(python)
            text = _cut(e.text, room)
            python_markup = f"  [dim]← line {e.python_line}[/dim]" if python else ""
            out(f"    [dim]{escape(where)}[/dim]  {escape(text)}{python_markup}")
        for label, text in (("why", finding.why), ("fix", finding.fix)):
            prefix = f"  {label}  "
            lines = _wrapped(prefix, text, width, len(prefix))
            out(f"  [bold]{label}[/bold]  {escape(lines[0][len(prefix):])}")
            for line in lines[1:]:
                out(escape(line))
    if hidden:
        out(f"\n({hidden} finding(s) below {min_severity} not shown)")

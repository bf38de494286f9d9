"""`ttinspect check` on a terminal: one block per finding — severity, id, title, the evidence lines with
their Python line, why, the fix. Rich is imported only here.

Width and colour follow render/term.py (the terminal's width, else COLUMNS, else 80; NO_COLOR turns off
every style, bold and dim included). Title, why and fix are wrapped to the width with a hanging indent; an
evidence line longer than the width is cut at a word with "…" (its stage:line and Python line are kept)."""

from __future__ import annotations

from rich.markup import escape

from ttinspect.render import fit, term
from ttinspect.render.glance import device_lines

_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold cyan"}
def _wrapped(label: str, text: str, width: int, indent: int) -> list[str]:
    """`label` + text wrapped to width, continuation lines indented by `indent`."""
    return fit.wrap(text, width, indent=" " * len(label), subsequent=" " * indent) or [" " * len(label)]


def findings_view(report, findings, hidden: int, min_severity: str) -> None:
    width = term.width()
    console = term.console()

    def out(markup: str) -> None:
        console.print(markup, soft_wrap=True)

    out(f"[bold]ttinspect check[/bold]: {escape(report.label)} on {report.target} "
        f"(Triton {report.triton_version})")
    # the virtual device the kernel's code asked at import (docs/virtual-device.md); how a capture saw it
    for said in device_lines([report], width):
        console.print(said, soft_wrap=True)
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
            text = fit.cut(e.text, max(room, 8))
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

"""`ttinspect check` on a terminal: one block per finding — severity, id, title, the evidence lines with
their Python line, why, the fix. Rich is imported only here."""

from __future__ import annotations

from rich.markup import escape

_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold cyan"}


def findings_view(report, findings, hidden: int, min_severity: str) -> None:
    from .tables import _console

    console = _console()
    console.print(f"[bold]ttinspect check[/bold]: {escape(report.label)} on {report.target} "
                  f"(Triton {report.triton_version})")
    if not findings:
        more = f" ({hidden} below {min_severity} not shown)" if hidden else ""
        console.print(f"no findings{more}")
        return
    for finding in findings:
        style = _STYLE.get(finding.severity, "bold")
        console.print()
        console.print(f"[{style}]{finding.severity.upper()}[/] [bold]{finding.id}[/bold] {finding.slug}: "
                      f"{escape(finding.title)}")
        for e in finding.evidence:
            where = f"{e.stage}:{e.line}" if e.line is not None else e.stage
            python = f"  [dim]← line {e.python_line}[/dim]" if e.python_line is not None else ""
            console.print(f"    [dim]{escape(where)}[/dim]  {escape(e.text)}{python}", soft_wrap=True)
        console.print(f"  [bold]why[/bold]  {escape(finding.why)}")
        console.print(f"  [bold]fix[/bold]  {escape(finding.fix)}")
    if hidden:
        console.print(f"\n({hidden} finding(s) below {min_severity} not shown)")

"""`ttinspect check FILE.ttcap` on a terminal and as JSON: one row per captured compile, the worst first
(check/captured.py sorts them), each with its findings by severity, spills, registers and launches."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ttinspect.check.captured import CheckedCompile
from ttinspect.check.model import SEVERITIES, severity_rank
from ttinspect.render import term


def capture_check_json(listing: Mapping[str, Any], rows: Sequence[CheckedCompile], min_severity: str) -> dict:
    floor = severity_rank(min_severity)
    return {
        "capture": listing["capture"], "run": listing["run"], "min_severity": min_severity,
        "counts": {level: sum(r.counts.get(level, 0) for r in rows) for level in reversed(SEVERITIES)},
        "unchecked": sum(1 for r in rows if r.error is not None),
        "compiles": [{**{k: r.row[k] for k in ("ref", "kernel", "number", "file", "line", "launches", "target",
                                                  "source")},
                      "checked_target": r.report.target if r.report is not None else None,
                      "counts": r.counts, "spills": r.spills, "registers": r.registers,
                      "ptx_vs_run": r.ptx_vs_run, "error": r.error,
                      "findings": [f.as_dict() for f in r.findings if f.rank >= floor]} for r in rows],
    }


def capture_check_table(listing: Mapping[str, Any], rows: Sequence[CheckedCompile], min_severity: str) -> None:
    from rich.table import Table

    from ttinspect.render.quoted import data as escape  # imports rich: only when a table is printed

    console = term.console()
    floor = severity_rank(min_severity)
    table = Table(title=escape(f"check of {listing['capture']}: {len(rows)} compile(s), the worst first"),
                  title_justify="left")
    table.add_column("kernel / defined at", overflow="fold", ratio=2)
    table.add_column("launches", justify="right", no_wrap=True)
    table.add_column("target", no_wrap=True)
    table.add_column("spills", justify="right", no_wrap=True)
    table.add_column("regs", justify="right", no_wrap=True)
    table.add_column("findings", overflow="fold", ratio=4)
    for r in rows:
        name = _name(r)
        where = f"{(r.row['file'] or '?').rsplit('/', 1)[-1]}:{r.row['line'] or '?'}"
        if r.error is not None:
            said = f"[bold]could not check[/bold]: {escape(r.error)}"
        else:
            shown = sorted((f for f in r.findings if f.rank >= floor), key=lambda f: -f.rank)
            counts = ", ".join(f"{r.counts[level]} {level}" for level in reversed(SEVERITIES) if r.counts.get(level))
            rules: dict[str, int] = {}
            for f in shown:  # one line per rule, worst first: `TTI005 narrow-global-access ×3`
                rules[f"{f.id} {f.slug}"] = rules.get(f"{f.id} {f.slug}", 0) + 1
            said = (counts or "none") + "".join(f"\n[dim]{escape(rule)}{f' ×{n}' if n > 1 else ''}[/dim]"
                                                for rule, n in rules.items())
        target = r.report.target if r.report is not None else (r.row["target"] or "-")
        table.add_row(f"{escape(name)}\n[dim]{escape(where)}[/dim]", str(r.row["launches"]), escape(target),
                      _number(r.spills), _number(r.registers), said)
    console.print(table)
    made = (listing.get("run") or {}).get("made")
    if made:  # on a CPU: as the target (`capture --as`), or the interpreter's CPU branches
        console.print(f"[dim]{escape(made)}[/dim]")
    compared = [r for r in rows if r.ptx_vs_run is not None]
    if compared:  # the run's Triton cache is on this machine: the offline compile must be the run's
        differ = [_name(r) for r in compared if r.ptx_vs_run == "differs"]
        console.print(f"PTX compared with the run's Triton cache: {len(compared) - len(differ)} of {len(compared)} "
                      "byte-identical" + (f"; [bold]differs[/bold]: {escape(', '.join(differ))}" if differ else ""))
    if rows:
        worst = rows[0].row["ref"]
        console.print(f"[dim]every finding of one, with its evidence and fix: ttinspect check {escape(worst)}[/dim]")


def _name(r: CheckedCompile) -> str:
    return r.row["kernel"] + (f"#{r.row['number']}" if r.row["of"] > 1 else "")  # as FILE.ttcap:NAME#N takes it


def _number(value: int | None) -> str:
    return "-" if value is None else str(value)

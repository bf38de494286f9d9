"""The table of autotune configs (`report REF --config all`)."""

from __future__ import annotations

from ttinspect.facts.model import format_value
from ttinspect.render import term
from ttinspect.render.tables import config_text

HEADERS = {"registers": "regs", "spills": "spills", "shared_memory": "shared B", "fits": "fits",
           "blocks_per_sm": "CTAs/SM", "occupancy": "occupancy", "pipeline_depth": "depth",
           "tensor_core_path": "tensor cores"}


def _cell(row, key: str) -> str:
    value = row.facts.get(key)
    if value is None:
        return "n/a" if row.reasons.get(key, "").startswith("not applicable") else "[dim]?[/dim]"
    if key == "occupancy" and isinstance(value, float):
        return f"{value:.0%}"
    if key == "fits" and value is False:
        return "[red]no[/red]"
    if key == "spills" and value:
        return f"[yellow]{value}[/yellow]"
    return format_value(value)


def config_table(rows) -> None:
    from rich.table import Table

    target = next((r.target for r in rows if r.target), "?")
    table = Table(title=f"{len(rows)} autotune configs · {target}", title_justify="left")
    table.add_column("config", no_wrap=True)
    table.add_column("constexprs / options", overflow="fold")
    for key in HEADERS:
        table.add_column(HEADERS[key], justify="right" if key != "tensor_core_path" else "left")
    for row in rows:
        if row.error:  # the reason, whole, below the table: a cell would cut it to the column's width
            table.add_row(row.label, config_text(row.config), "[red]failed[/red]", *[""] * (len(HEADERS) - 1))
            continue
        table.add_row(row.label, config_text(row.config), *(_cell(row, key) for key in HEADERS))
    console = term.console()
    console.print(table)
    notes = {row.note.partition("; ")[2] for row in rows if "; " in row.note}
    for note in sorted(n for n in notes if n):
        console.print(f"[dim]{note}[/dim]")
    unknown = {(k, v) for row in rows for k, v in row.reasons.items()
               if v and k != "fits" and not v.startswith("not applicable")}
    for key, reason in sorted(unknown):
        console.print(f"[dim]? {HEADERS.get(key, key)}: {reason}[/dim]")
    for row in rows:
        if "fits" in row.reasons:
            console.print(f"[red]{row.label}: {row.reasons['fits']}[/red]")
    for row in rows:
        if row.error:
            console.print(f"[red]{row.label} failed: {' '.join(row.error.split())}[/red]", soft_wrap=True)

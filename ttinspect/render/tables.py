"""Rich tables for the terminal. Rich is imported here only, when a table is actually printed."""

from __future__ import annotations

from typing import Any, Iterable, Mapping


def _config_text(config: Mapping[str, Any]) -> str:
    short = {"BLOCK_SIZE_M": "BM", "BLOCK_SIZE_N": "BN", "BLOCK_SIZE_K": "BK", "BLOCK_M": "BM",
             "BLOCK_N": "BN", "BLOCK_K": "BK", "GROUP_SIZE_M": "G", "num_warps": "warps",
             "num_stages": "stages"}
    return " ".join(f"{short.get(k, k)}={getattr(v, 'name', v)}" for k, v in config.items())


def variants_table(rows: Iterable[Mapping[str, Any]]) -> None:
    from rich.table import Table

    table = Table(title="ttinspect variants", show_lines=False)
    for column in ("name", "aliases", "seed", "config", "description"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(row["name"], ", ".join(row["aliases"]), row["seed"], _config_text(row["config"]),
                      row["description"])
    _console().print(table)


def _console():
    """A terminal gets its own width; a pipe or file gets a wide one, so tables are not folded to 80."""
    import sys

    from rich.console import Console

    return Console(highlight=False, width=None if sys.stdout.isatty() else 160)


def report_table(report) -> None:
    """Facts grouped like doc 003: configuration, pipeline, memory traffic, tensor cores, ..."""
    from rich.table import Table

    table = Table(title=f"{report.label} · {report.target} · Triton {report.triton_version}",
                  title_justify="left", show_lines=False)
    table.add_column("fact", no_wrap=True)
    table.add_column("value", overflow="fold")
    table.add_column("meaning", style="dim", overflow="fold")
    for group, facts in report.by_group():
        table.add_section()
        table.add_row(f"[bold]{group}[/bold]", "", "")
        for fact in facts:
            value = fact.display()
            style = "dim italic" if fact.value is None else ""
            table.add_row(f"  {fact.title}", f"[{style}]{value}[/]" if style else value, fact.explanation)
    _console().print(table)


def diff_table(result) -> None:
    """Facts side by side, changed ones highlighted, then one explanation per changed fact."""
    from rich.table import Table

    a, b = result.a, result.b
    table = Table(title=f"{a.label}@{a.target}  vs  {b.label}@{b.target}", title_justify="left")
    table.add_column("fact", no_wrap=True)
    table.add_column(f"{a.label}@{a.target}", overflow="fold")
    table.add_column(f"{b.label}@{b.target}", overflow="fold")
    from ..facts.model import GROUPS

    group = None
    for fa, fb in sorted(result.rows, key=lambda row: GROUPS.index(row[0].group)):
        if fa.group != group:
            group = fa.group
            table.add_section()
            table.add_row(f"[bold]{group}[/bold]", "", "")
        changed = fa.value != fb.value
        style = "bold yellow" if changed else ""
        table.add_row(f"  {fa.title}", fa.display(), fb.display(), style=style)
    console = _console()
    console.print(table)
    if result.changes:
        console.print("[bold]What changed, and what it means[/bold]")
        for change in result.changes:
            console.print(f"• [yellow]{change.title}[/yellow]: {change.explanation}")
    else:
        console.print("No fact differs.")


def by_line_table(built, stage: str, whole, loop, reason: str | None) -> None:
    """Instructions per Python line: the whole kernel and one trip around the main loop."""
    from rich.table import Table

    def breakdown(row, limit: int = 5) -> str:
        return ", ".join(f"{name}×{count}" for name, count in row.families[:limit]) + \
            (", …" if len(row.families) > limit else "")

    table = Table(title=f"{built.label} · {built.target.name} · {stage} instructions per Python line",
                  title_justify="left")
    for column in ("line", "source", "kernel", "main loop (per iteration)"):
        table.add_column(column, overflow="fold")
    for row in whole:
        in_loop = loop.get(row.line)
        label = str(row.line) if row.line is not None else "—"
        source = row.text if row.line is not None else "no line: " + ", ".join(row.sites)
        table.add_row(label, source or "", f"{row.count}",
                      f"{in_loop.count}: {breakdown(in_loop)}" if in_loop else "")
    console = _console()
    if reason:
        console.print(f"[yellow]no source attribution: {reason}[/yellow]")
    console.print(table)

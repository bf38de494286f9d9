"""`ttinspect versions` and `ttinspect toolchains` on a terminal."""

from __future__ import annotations

from ttinspect.render import term
from ttinspect.render.glance import columns_that_fit, natural_widths, print_device_lines, print_left_out

_HEADS = {"pipeline_depth": "depth", "tensor_core_path": "tensor cores", "loop_cp_async": "cp.async",
          "tma_copies": "TMA", "shared_memory": "shared B", "registers": "regs", "spills": "spills",
          "occupancy": "occ."}


def versions_table(ref: str, target: str, rows) -> None:
    """A row per release; a cell that differs from the release above it is marked (bold yellow, and `*`
    so that a pipe shows it too); the columns that fit the width, the rest named under it."""
    from rich.markup import escape
    from rich.table import Table


    console = term.console()
    heads = ["triton", *_HEADS.values()]
    body, errors, previous = [], [], None
    for row in rows:
        name = row.version + ("*" if row.installed else "")
        if row.error:
            errors.append((row.version, row.error))
            body.append([name, f"[red]error {len(errors)}[/red]", *[""] * (len(_HEADS) - 1)])
            continue
        cells = []
        for key in _HEADS:
            text = escape(row.display.get(key, "—"))
            if previous is not None and previous.facts.get(key) != row.facts.get(key):
                text = f"[bold yellow]{text} *[/bold yellow]"
            cells.append(text)
        body.append([name, *cells])
        previous = row
    natural = natural_widths(heads, body)
    kept = columns_that_fit(natural, console.width, list(range(len(heads))))
    table = Table(title=f"{ref} · {target} · one row per Triton", title_justify="left")
    for i, head in enumerate(heads):
        if i in kept:
            table.add_column(head, no_wrap=True,
                             justify="left" if head in ("triton", "tensor cores", "cp.async", "TMA") else "right")
    for cells in body:
        table.add_row(*(c for i, c in enumerate(cells) if i in kept))
    console.print(table)
    print_device_lines(console, (row.device for row in rows))  # docs/virtual-device.md
    print_left_out(console, heads, kept)
    console.print("[dim]X.Y.Z* the installed release; a cell marked * differs from the release above: "
                  "`ttinspect diff REF@triton=A REF@triton=B` explains it[/dim]")
    for n, (version, error) in enumerate(errors, 1):
        console.print(f"[red]error {n}[/red] (Triton {version}): {escape(error)}")


def toolchains_table(rows) -> None:
    from rich.table import Table

    console = term.console()
    table = Table(title="Triton toolchains", title_justify="left")
    for head in ("triton", "kind", "size", "prepared in", "status", "python"):
        table.add_column(head, overflow="fold", justify="right" if head in ("size", "prepared in") else "left")
    for row in rows:
        size = "—" if row["size"] is None else f"{row['size'] / 2**20:.0f} MiB"
        took = "—" if row["seconds"] is None else f"{row['seconds']:.0f} s ({row.get('tool') or '?'})"
        table.add_row(row["version"], row["kind"], size, took, row["status"], row["python"])
    console.print(table)
    console.print("[dim]add one: ttinspect toolchains --add X.Y.Z (or --add X.Y.Z --python PATH to register an "
                  "existing environment); use it: ttinspect report opt@triton=X.Y.Z[/dim]")

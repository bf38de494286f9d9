"""`ttinspect cache` on a terminal: one row per kernel, unknowns as `?` with their reasons below."""

from __future__ import annotations

from pathlib import Path

from ttinspect.render import fit, term
from ttinspect.files.terminal_text import shown
from ttinspect.render.glance import columns_that_fit, print_left_out
from ttinspect.caches.triton import default_dir

COLUMNS = (("id", "id"), ("name", "kernel"), ("target", "target"), ("num_warps", "warps"),
           ("num_stages", "stages"), ("shared", "shared B"), ("registers", "regs"), ("spills", "spills"),
           ("depth", "depth"), ("tensor_core_path", "tensor cores"), ("source", "source"),
           ("triton_version", "triton"))


def _cell(row, key: str) -> str:
    value = getattr(row, key)
    if key == "id":
        return value[:10]
    if value is None:
        return "n/a" if row.unknown.get(key, "").startswith("not applicable") else "?"
    if key == "source":  # the file's name; Inductor's generated names are long hashes: keep their end
        path, _, line = value.rpartition(":")
        name = path.rsplit("/", 1)[-1]
        return f"{'…' + name[-13:] if len(name) > 14 else name}:{line}"
    return str(value)


def _styled(key: str, cell: str) -> str:
    """A cell as rich markup: its text quoted (a kernel's name is a stranger's data), spills in yellow."""
    from ttinspect.render.quoted import data  # imports rich: only when a table is printed

    text = data(cell)
    return f"[yellow]{text}[/yellow]" if key == "spills" and cell not in ("0", "?", "n/a") else text


# What stays when the width is short: the id and the name, then what a reader looks for first.
PRIORITY = ("id", "name", "registers", "spills", "shared", "depth", "tensor_core_path", "target", "num_warps",
            "num_stages", "triton_version", "source")


def _say_rows_read_alike(console, cells: list[list[str]], kept: set[int], name_width: int) -> None:
    """Where the width cannot keep every kernel's row apart (hundreds of kernels differing in a dozen ways),
    say so under the table rather than let two different kernels read the same: the id tells them apart, and
    a wider table or --json shows what differs."""
    def shown_row(row_cells: list[str], columns, width: int) -> tuple[str, ...]:
        return tuple(fit.cut(c, width) if COLUMNS[i][0] == "name" else c
                     for i, c in enumerate(row_cells) if i in columns and i != 0)

    every = range(len(COLUMNS))  # as the widest table shows them (a name cut at 36, as from 120 columns)
    distinct = len({shown_row(row_cells, every, 36) for row_cells in cells})
    alike = distinct - len({shown_row(row_cells, kept, name_width) for row_cells in cells})
    if alike > 0:
        text = (f"{alike} kernel(s) read like another here at {console.width} columns although they differ, in a "
                "column left out or a name cut short (their ids tell them apart; --width or --json shows what differs)")
        console.print("\n".join(fit.wrap(text, console.width)), style="dim", markup=False, highlight=False)


def cache_table(rows, root: str) -> None:
    from rich.cells import cell_len
    from rich.table import Table

    from ttinspect.render.quoted import data  # imports rich: only when a table is printed

    console = term.console()
    # plain text, as it will show (control characters quoted): the widths are those of what is printed
    cells = [[shown(_cell(row, key)) for key, _ in COLUMNS] for row in rows]
    name_width = 36 if console.width >= 120 else 26
    longest = [max([len(title)] + [cell_len(row_cells[i]) for row_cells in cells])
               for i, (_, title) in enumerate(COLUMNS)]
    natural = [min(name_width, n) if key == "name" else n for (key, _), n in zip(COLUMNS, longest, strict=True)]
    keys = [key for key, _ in COLUMNS]
    kept = columns_that_fit(natural, console.width, [keys.index(k) for k in PRIORITY], cells, unique=0)
    table = Table(title=f"{len(rows)} kernels in {data(root)}", title_justify="left")
    for i, (key, title) in enumerate(COLUMNS):  # one line per kernel: a long name is cut (--json has it whole)
        if i in kept:
            table.add_column(title, no_wrap=True, overflow="ellipsis",
                             max_width=name_width if key == "name" else None,
                             min_width=10 if key == "id" else len(title),
                             justify="right" if key in ("num_warps", "num_stages", "shared", "registers", "spills",
                                                        "depth") else "left")
    for row_cells in cells:  # a long name is cut at a word or `_` with an ellipsis, never by rich mid-word
        table.add_row(*(_styled(COLUMNS[i][0], fit.cut(c, name_width) if COLUMNS[i][0] == "name" else c)
                        for i, c in enumerate(row_cells) if i in kept))
    console.print(table)
    print_left_out(console, [title for _, title in COLUMNS], kept)
    _say_rows_read_alike(console, cells, kept, name_width)
    reasons: dict[tuple[str, str], int] = {}
    for row in rows:
        for key, reason in row.unknown.items():
            if key in ("source",) or not reason.startswith("not applicable"):
                reasons[(key, reason)] = reasons.get((key, reason), 0) + 1
        if row.missing:
            missing = ("stages", f"missing {', '.join(row.missing)}")
            reasons[missing] = reasons.get(missing, 0) + 1
    for (key, reason), count in sorted(reasons.items()):
        console.print(f"[dim]? {data(key)} ({count} kernel{'s' if count > 1 else ''}): {data(reason)}[/dim]")

    env = "" if Path(root).resolve() == default_dir().resolve() else f"TRITON_CACHE_DIR={root} "
    console.print(f"[dim]inspect one: {data(env)}ttinspect report cache:<id prefix>   (dump / diff take it too)[/dim]")

"""`ttinspect targets` on a terminal: one row per target; the columns that fit the width (the target and
whether the installed Triton compiles for it first), the rest named under the table."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ttinspect.render.glance import columns_that_fit, natural_widths, print_left_out
from ttinspect.render import fit, term


def _kib(value: int | None) -> str:
    return "—" if value is None else f"{value // 1024} KB"


def targets_table(rows: Sequence[Mapping[str, Any]], here: str) -> None:
    from rich.table import Table


    heads = ["target", "GPUs", "smem/block", "smem/SM", "warps", "blocks", here, "compiled by"]
    body = []
    for row in rows:
        usable = {True: "yes", False: "no", None: "not measured"}[row["installed_triton_compiles"]]
        if row["installed_triton_compiles"] and not row["usable"]:
            usable = "no limits"
        body.append([row["target"], row["gpus"], _kib(row["max_shared_per_block"]), _kib(row["shared_per_sm"]),
                     str(row["max_warps_per_sm"] or "—"), str(row["max_blocks_per_sm"] or "—"), usable,
                     row["tritons"]])
    console = term.console()
    natural = natural_widths(heads, body)
    natural[1] = min(natural[1], 24)  # GPU names fold onto a second line
    kept = columns_that_fit(natural, console.width, [0, 6, 2, 4, 5, 1, 3, 7])
    table = Table(box=None, pad_edge=False, show_edge=False)
    for i, head in enumerate(heads):
        if i in kept:
            table.add_column(head, justify="right" if 2 <= i <= 5 else "left", overflow="fold",
                             max_width=24 if i == 1 else None)
    for cells in body:
        table.add_row(*(c for i, c in enumerate(cells) if i in kept))
    console.print(table)
    print_left_out(console, heads, kept)
    console.print("\n".join(fit.wrap("AMD (gfx*): smem = LDS, SM = CU, warps = waves (64 lanes on CDNA, 32 on RDNA), "
                                     "blocks = workgroups", console.width)), markup=False, no_wrap=True, crop=False)

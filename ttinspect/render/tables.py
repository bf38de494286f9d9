"""Rich tables for the terminal. Rich is imported here only, when a table is actually printed."""

from __future__ import annotations

from typing import Any, Iterable, Mapping


def _config_text(config: Mapping[str, Any]) -> str:
    short = {"BLOCK_SIZE_M": "BM", "BLOCK_SIZE_N": "BN", "BLOCK_SIZE_K": "BK", "BLOCK_M": "BM",
             "BLOCK_N": "BN", "BLOCK_K": "BK", "GROUP_SIZE_M": "G", "num_warps": "warps",
             "num_stages": "stages"}
    return " ".join(f"{short.get(k, k)}={getattr(v, 'name', v)}" for k, v in config.items())


def variants_table(rows: Iterable[Mapping[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="ttinspect variants", show_lines=False)
    for column in ("name", "aliases", "seed", "config", "description"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(row["name"], ", ".join(row["aliases"]), row["seed"], _config_text(row["config"]),
                      row["description"])
    Console().print(table)

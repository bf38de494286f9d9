"""Rich tables for the terminal. Rich is imported here only, when a table is actually printed."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ttinspect.files.terminal_text import shown
from ttinspect.kernel.variants import config_value_text
from ttinspect.render import fit, term
from ttinspect.render.glance import print_device_lines, print_lines
from ttinspect.report.model import build_device_line

# The short names of the keys every matmul has; a table's column or a one-line config uses them.
SHORT_KEYS = {"BLOCK_SIZE_M": "BM", "BLOCK_SIZE_N": "BN", "BLOCK_SIZE_K": "BK", "BLOCK_M": "BM",
              "BLOCK_N": "BN", "BLOCK_K": "BK", "GROUP_SIZE_M": "G", "num_warps": "warps",
              "num_stages": "stages"}


def config_text(config: Mapping[str, Any]) -> str:
    return " ".join(f"{SHORT_KEYS.get(k, k)}={config_value_text(v)}" for k, v in config.items())


def variants_table(rows: Iterable[Mapping[str, Any]]) -> None:
    """A variant per entry: name (aliases), seed and config on one line, its description wrapped under it —
    readable at 80 columns, where a five-column table folds every cell."""
    from rich.text import Text

    rows = list(rows)
    width = term.width()
    names = [row["name"] + (f" ({', '.join(row['aliases'])})" if row["aliases"] else "") for row in rows]
    room = min(max(len(n) for n in names), width // 3)
    lines = [Text(f"ttinspect variants ({len(rows)})", style="bold")]
    for name, row in zip(names, rows, strict=True):
        head = Text("  ")
        head.append(name.ljust(room), style="bold")
        head.append(f"  seed {row['seed']}  ")
        head.append(config_text(row["config"]))
        if len(head.plain) <= width:
            lines.append(head)
        else:  # a long config at a narrow width: wrapped under the name
            lines += [Text(p) for p in fit.wrap(head.plain, width, subsequent=" " * (room + 4))]
        lines += [Text(piece, style="dim") for piece in fit.wrap(row["description"], width, indent="      ")]
    print_lines(lines)


def by_line_table(built, stage: str, whole, loop, reason: str | None) -> None:
    """Instructions per Python line: the whole kernel and one trip around the main loop."""
    from rich.text import Text

    from ttinspect.render.fitted_table import fitted_table  # imports rich: only when a table is printed

    def breakdown(row, limit: int = 5) -> str:
        return ", ".join(f"{name}×{count}" for name, count in row.families[:limit]) + \
            (", …" if len(row.families) > limit else "")

    rows = []
    for row in whole:
        in_loop = loop.get(row.line)
        label = str(row.line) if row.line is not None else "—"
        source = row.text if row.line is not None else "no line: " + ", ".join(row.sites)
        rows.append(([Text(label), Text(shown(source or "")), Text(f"{row.count}"),
                      Text(shown(f"{in_loop.count}: {breakdown(in_loop)}")) if in_loop else Text("")], ""))
    console = term.console()
    if reason:
        console.print(Text(shown(f"no source attribution: {reason}"), style="yellow"))
    title = Text(shown(f"{built.label} · {built.target.name} · {stage} instructions per Python line"))
    console.print(fitted_table(["line", "source", "kernel", "main loop (per iteration)"], rows, console.width,
                               flexible={1, 3}, title=title))
    print_device_lines(console, [build_device_line(built)])  # docs/virtual-device.md

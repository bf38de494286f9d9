"""`ttinspect sweep`'s table and heatmap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ttinspect.errors import UsageError
from ttinspect.render.configs import HEADERS
from ttinspect.render import term
from ttinspect.facts.model import format_value
from ttinspect.render.glance import columns_that_fit, natural_widths, print_device_lines, print_left_out
from ttinspect.files.outputs import write_atomically
from ttinspect.sweep.output import values

SWEEP_HEADERS = {**HEADERS, "occupancy_limit": "occ. limit", "loop_tensor_core_ops": "loop TC ops",
                 "time": "time ms", "time_bound": "bound"}


def _cell(row: dict, key: str) -> str:
    """A fact; else what --where and --csv see under that name (a grid key, the config, arch, label)."""
    facts = row.get("facts") or {}
    value = facts[key] if key in facts else values(row).get(key)
    if value is None:
        reason = (row.get("reasons") or {}).get(key, "")
        return "n/a" if reason.startswith("not applicable") else "[dim]?[/dim]"
    if key == "occupancy" and isinstance(value, (int, float)):
        return f"{value}%"
    if key == "fits" and value is False:
        return "[red]no[/red]"
    if key == "spills" and value:
        return f"[yellow]{value}[/yellow]"
    if isinstance(value, dict):
        return ", ".join(f"{k}×{v}" for k, v in value.items()) or "none"
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    return format_value(value)


def sweep_table(result, rows: list[dict], columns: tuple[str, ...]) -> None:
    """One row per point: its axes (always shown), then the fact columns that fit the width in the order
    asked (the rest are named under the table); a failed point says `error N`, its message below."""
    from rich.markup import escape
    from rich.table import Table


    console = term.console()
    targets = sorted({str(r.get("target") or r.get("arch") or "default") for r in result.rows})
    title = (f"sweep {result.ref} · {len(rows)} of {result.total} points shown · {', '.join(targets)} · "
             f"{result.seconds:.1f} s ({result.warm} warm, {result.compiled} compiled, {result.failed} failed)")
    heads = list(result.axes) + (["arch"] if len(targets) > 1 else []) + [SWEEP_HEADERS.get(k, k) for k in columns]
    fixed = len(heads) - len(columns)
    errors: list[str] = []
    body = []
    for row in rows:
        point = [str(row.get("point", {}).get(axis, "")) for axis in result.axes]
        arch = [str(row.get("target") or row.get("arch") or "")] if len(targets) > 1 else []
        if row.get("error"):
            errors.append(row["error"])
            body.append([*point, *arch, f"[red]error {len(errors)}[/red]", *[""] * (len(columns) - 1)])
            continue
        body.append([*point, *arch, *(_cell(row, key) for key in columns)])
    natural = natural_widths(heads, body)
    # what a sweep is read for first, when not every column fits (the table keeps the order asked)
    rank = {k: n for n, k in enumerate(("pipeline_depth", "registers", "spills", "shared_memory", "fits",
                                        "occupancy", "tensor_core_path"))}
    order = sorted(range(len(columns)), key=lambda i: (rank.get(columns[i], len(rank)), i))
    kept = columns_that_fit(natural, console.width, list(range(fixed)) + [fixed + i for i in order])
    kept |= set(range(min(fixed + 1, len(heads))))  # the point's axes and the first fact (or its error)
    table = Table(title=title, title_justify="left")
    for i, head in enumerate(heads):
        if i in kept:
            key = columns[i - fixed] if i >= fixed else ""
            table.add_column(head, justify="left" if key in ("tensor_core_path", "occupancy_limit") else "right")
    for cells in body:
        table.add_row(*(c for i, c in enumerate(cells) if i in kept))
    console.print(table)
    print_device_lines(console, (r.get("device") for r in result.rows))  # docs/virtual-device.md
    print_left_out(console, heads, kept, "--width, --json, --csv")
    for n, error in enumerate(errors, 1):
        console.print(f"[red]error {n}:[/red] {escape(error)}")
    if result.interrupted:
        console.print(f"[yellow]{result.stop_reason}: {len(result.rows)} of {result.total} points finished "
                      "(their artifacts are in the cache: the same sweep again starts from there)[/yellow]")
    for note in result.notes:
        console.print(f"[yellow]{note}[/yellow]")


def heatmap(result, rows: list[dict], out: str, axes: tuple[str, str] | None, fact: str,
            force: bool = False) -> str:
    """A heatmap of `fact` over two axes (other axes and targets: the best value — the lowest for
    registers/spills/shared memory, else the highest — with the count of points folded into a cell
    shown). Returns a one-line note."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install matplotlib") from None
    x_axis, y_axis = axes or _default_axes(result)
    lower_is_better = fact in ("registers", "spills", "shared_memory", "local_bytes", "spill_store_bytes",
                               "spill_load_bytes", "stack")
    xs = _axis_values(rows, x_axis)
    ys = _axis_values(rows, y_axis)
    cells: dict[tuple[Any, Any], list[float]] = {}
    for row in rows:
        if row.get("error"):
            continue
        value = _number((row.get("facts") or {}).get(fact))
        where = (_get(row, x_axis), _get(row, y_axis))
        if value is not None:
            cells.setdefault(where, []).append(value)
    import math

    grid = [[(min if lower_is_better else max)(cells[(x, y)]) if (x, y) in cells else math.nan for x in xs]
            for y in ys]
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * max(len(xs), 2), 1.0 + 0.6 * max(len(ys), 2)))
    image = ax.imshow(grid, cmap="viridis_r" if lower_is_better else "viridis", aspect="auto", origin="lower")
    ax.set_xticks(range(len(xs)), [str(x) for x in xs])
    ax.set_yticks(range(len(ys)), [str(y) for y in ys])
    ax.set_xlabel(x_axis)
    ax.set_ylabel(y_axis)
    for j, row_values in enumerate(grid):
        for i, value in enumerate(row_values):
            ax.text(i, j, "—" if math.isnan(value) else f"{value:g}", ha="center", va="center", fontsize=8,
                    color="white")
    folded = "" if len(result.axes) <= 2 and len({r.get('target') for r in rows}) <= 1 else \
        f" ({'lowest' if lower_is_better else 'highest'} over the other axes)"
    ax.set_title(f"{result.ref}: {fact}{folded}", fontsize=9)
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    import io


    image = io.BytesIO()  # drawn in memory, written atomically: a failure leaves what was at `out`
    fig.savefig(image, dpi=120, format=Path(out).suffix.lstrip(".").lower() or "png")
    plt.close(fig)
    write_atomically(Path(out), image.getvalue(), force=force)
    return f"wrote {out}: {fact} over {x_axis} × {y_axis}"


def _default_axes(result) -> tuple[str, str]:
    axes = list(result.axes)
    if len({r.get("target") or r.get("arch") for r in result.rows}) > 1:
        axes.append("arch")
    if len(axes) < 2:
        raise UsageError("--plot needs two axes: a --grid with two keys, or one key and several --arch targets")
    return axes[0], axes[1]


def _get(row: dict, axis: str) -> Any:
    if axis == "arch":
        return row.get("target") or row.get("arch")
    return (row.get("point") or {}).get(axis, (row.get("config") or {}).get(axis))


def _axis_values(rows: list[dict], axis: str) -> list[Any]:
    seen = []
    for row in rows:
        value = _get(row, axis)
        if value is not None and value not in seen:
            seen.append(value)
    if not seen:
        raise UsageError(f"--plot-axes: {axis!r} is not an axis of this sweep")
    try:
        return sorted(seen)
    except TypeError:
        return seen


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    return None

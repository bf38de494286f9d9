"""Rich tables for the GPU commands (bench, profile, ladder, autotune)."""

from __future__ import annotations

from typing import Any, Mapping

from ttinspect.render import term
from ttinspect.render.tables import config_text
from ttinspect.render.glance import DETAIL
from ttinspect.facts.model import format_value


def bench_table(result) -> None:
    from rich.table import Table

    table = Table(title=f"{result.device} · Triton {result.triton_version} · torch {result.torch_version} · "
                        f"{result.dtype} · median of do_bench", title_justify="left")
    table.add_column("M=N=K", justify="right")
    table.add_column("cuBLAS TFLOP/s", justify="right")
    for timing in result.results[0].variants:
        table.add_column(f"{timing.label} TFLOP/s (× cuBLAS)", justify="right")
    for row in result.results:
        cells = [str(row.size), f"{row.cublas.tflops:.0f}"]
        cells += [f"{t.tflops:.0f} ({row.ratio(t):.2f}×)" for t in row.variants]
        table.add_row(*cells)
    term.console().print(table)


def replay_table(result) -> None:
    """Captured kernels replayed: time, speed against the first reference, and whether each computes what
    the first did from the same data."""
    from rich.table import Table

    from ttinspect.render.quoted import data  # imports rich: only when a table is printed

    table = Table(title=f"{result.device} · Triton {result.triton_version} · torch {result.torch_version} · "
                        f"captured launches replayed, median of {result.rounds} rounds of do_bench",
                  title_justify="left")
    for column in ("replay", "grid", "ms", "× first", "max |Δ| vs first"):
        table.add_column(column, justify="left" if column == "replay" else "right")
    for row in result.rows:
        diff = "—" if row.max_abs_diff is None else f"{row.max_abs_diff:.3g}"
        table.add_row(data(row.label), "×".join(str(n) for n in row.grid), f"{row.ms:.4f}",
                      f"{row.ratio_to_first:.2f}×", diff)
    term.console().print(table)
    term.console().print(f"replayed from: {data(result.rows[0].site)}" if result.rows else "")


def _fmt(value: float | None, scale: float = 1.0, digits: int = 1, unit: str = "") -> str:
    return "n/a" if value is None else f"{value / scale:.{digits}f}{unit}"


def profile_table(profiles, size: int | None) -> None:
    """size: M=N=K of the matmuls; None for captured launches (their own shapes)."""
    from rich.table import Table

    what = f"M=N=K={size}" if size is not None else "captured launches replayed"
    table = Table(title=f"Nsight Compute, one launch each, {what} (--clock-control none)",
                  title_justify="left")
    for column in ("kernel", "duration", "L2 hit rate", "DRAM read", "DRAM write", "tensor pipe",
                   "achieved occupancy"):
        table.add_column(column, justify="right" if column != "kernel" else "left")
    for p in profiles:
        m = p.metrics
        table.add_row(p.label, _fmt(m["duration_us"], unit=" µs"), _fmt(m["l2_hit_rate_pct"], unit=" %"),
                      _fmt(m["dram_read_bytes"], 1e6, 0, " MB"), _fmt(m["dram_write_bytes"], 1e6, 0, " MB"),
                      _fmt(m["tensor_pipe_pct"], unit=" %"), _fmt(m["achieved_occupancy_pct"], unit=" %"))
    term.console().print(table)


def ladder_table(data: Mapping[str, Any]) -> None:
    """One row per step; its label only when it says more than the step's name; what changed one fact
    per line, detail facts left out (the JSON has them all)."""
    from rich.table import Table


    table = Table(title=f"doc 003 §7.1 ladder · {data['device']} · M=N=K={data['size']} · cuBLAS "
                        f"{data['cublas']['tflops']:.0f} TFLOP/s", title_justify="left")
    for column in ("step", "TFLOP/s", "× prev", "× naive", "what changed (static facts)"):
        table.add_column(column, overflow="fold", justify="left" if column[0] in "sw" else "right")
    for row in data["steps"]:
        changes = [f"{c['title']}: {_short(c['before'])} → {_short(c['after'])}"
                   for c in row.get("changes", []) if c.get("key") not in DETAIL]
        if "profile" in row:
            p = row["profile"]
            changes.append(f"[dim]L2 hit {_fmt(p.get('l2_hit_rate_pct'), unit=' %')}, DRAM read "
                           f"{_fmt(p.get('dram_read_bytes'), 1e6, 0, ' MB')}, tensor pipe "
                           f"{_fmt(p.get('tensor_pipe_pct'), unit=' %')}[/dim]")
        step = row["step"] if row["label"] == row["step"] else f"{row['step']}\n[dim]{row['label']}[/dim]"
        table.add_row(step, f"{row['tflops']:.0f}", f"{row.get('speedup_vs_previous', 1.0):.2f}×",
                      f"{row['speedup_vs_naive']:.2f}×", "\n".join(changes) or "—")
    term.console().print(table)


def _short(value: Any) -> str:
    return "—" if value is None else format_value(value)


def autotune_table(data: Mapping[str, Any]) -> None:
    from rich.table import Table

    table = Table(title=f"autotune {data['variant']} · {data['device']} · M=N=K={data['size']} · cuBLAS "
                        f"{data['cublas']['tflops']:.0f} TFLOP/s", title_justify="left")
    for column in ("#", "config", "ms", "TFLOP/s", "× cuBLAS"):
        table.add_column(column, justify="left" if column == "config" else "right")
    best = data["best"]["index"]
    for row in data["results"]:
        style = "bold green" if row["index"] == best else ""
        if row.get("skipped"):
            table.add_row(str(row["index"]), config_text(row["config"]), "—", "—", row["skipped"], style="dim")
            continue
        table.add_row(str(row["index"]), config_text(row["config"]), f"{row['ms']:.3f}", f"{row['tflops']:.0f}",
                      f"{row['ratio_to_cublas']:.2f}", style=style)
    console = term.console()
    console.print(table)
    console.print(f"winner: #{best} ({data['best']['ratio_to_cublas']:.2f}× cuBLAS), saved to "
                  f"{data['saved_to']}; inspect it with `ttinspect report {data['variant']} --config best`")

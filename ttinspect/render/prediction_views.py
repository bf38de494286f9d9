"""Text views of predicted times (docs/predict.md), drawn from their JSON form so that this layer needs
nothing of the model's: a captured run's kernels by predicted time (`predict step.ttcap`), and doc 003 §5's
block of a diff (`diff A B --device NAME`): each side's time, the speedup, the breakdown's changes."""

from __future__ import annotations

from typing import Any, Mapping

from ttinspect.files.terminal_text import shown


def _ms(value: float | None) -> str:
    return "?" if value is None else f"{value:.4f} ms"


def _span(low: float | None, high: float | None, unit: str = " ms", digits: int = 4) -> str:
    if low is None or high is None:
        return "?"
    if abs(high - low) <= 1e-9 * max(abs(high), 1e-12):
        return f"{low:.{digits}f}{unit}"
    return f"{low:.{digits}f} – {high:.{digits}f}{unit}"


def capture_times_text(data: Mapping[str, Any]) -> str:
    """`predict step.ttcap`: one line per compile, slowest first, with the share of the total; the kernels
    without a time under the table, each with its reason."""
    kernels = data["kernels"]
    timed = [k for k in kernels if k["high_ms"] is not None]
    launches = sum(k["launches"] for k in kernels)
    head = f"{shown(data['capture'])} on {data['device']} ({data['figures']} figures): "
    if data["total_high_ms"] is None:  # no kernel has a time: unknown, never 0 ms
        lines = [f"{head}nothing predicted (unknown): none of its {len(kernels)} compile(s) has a time; why, for "
                 "each:"]
    else:
        total = _span(data["total_low_ms"], data["total_high_ms"])
        lines = [f"{head}{launches} launches of {len(kernels)} compiles, predicted {total} in all" +
                 (" (the kernels below without a time not counted)" if len(timed) < len(kernels) else "")]
    if timed:
        measured = any(k["measured_ms_per_launch"] is not None for k in timed)
        rows = [("kernel", "launches", "per launch", "total", "share", *(("measured/launch",) if measured else ()))]
        for k in timed:
            per = [p["time_ms"] for s in k["sites"] for p in s["launches"] if p["time_ms"] is not None]
            share = k["share"]
            rows.append((shown(k["kernel"]), str(k["launches"]), _span(min(per), max(per)),
                         _span(k["low_ms"], k["high_ms"]), _span(100 * share[0], 100 * share[1], " %", 1),
                         *((_ms(k["measured_ms_per_launch"]),) if measured else ())))
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        bounds = ["bound", *((k["bound"] or "?") + (" (some sites not predicted: --json)"
                                                   if any(s["reason"] for s in k["sites"]) else "") for k in timed)]
        for row, bound in zip(rows, bounds, strict=True):
            cells = [row[0].ljust(widths[0]), *(cell.rjust(width) for cell, width in zip(row[1:], widths[1:],
                                                                                        strict=True))]
            lines.append("  " + "  ".join(cells) + "  " + bound)
    unknown = [k for k in kernels if k["high_ms"] is None]
    if unknown:
        lines.append("no time (unknown):")
        for k in unknown:
            reason = k["reason"] or next((s["reason"] for s in k["sites"] if s["reason"]), "?")
            lines.append(f"  {shown(k['kernel'])} ({k['launches']} launches): {shown(reason)}")
    if any(k["high_ms"] != k["low_ms"] for k in timed):
        lines.append("a range: the site recorded several grids (or argument sets) and not how many launches "
                     "each had")
    lines.extend(f"note: {shown(note)}" for note in data.get("notes") or ())
    return "\n".join(lines)


def diff_times_text(data: Mapping[str, Any]) -> str:
    """Doc 003 §5 for two kernels: each side's time, TFLOP/s and bound, the speedup, and each part of the
    breakdown (the bound's term and the terms under it) from A to B."""
    a, b = data["a"], data["b"]
    lines = [f"predicted on {data['device']} ({data['figures']} figures):"]
    for side, p in (("A", a), ("B", b)):
        if p["time_ms"] is None:
            verdict = "cannot run" if not p["runs"] else "no prediction"
            lines.append(f"  {side} {shown(p['ref'])}: {verdict}: {shown(p['reason'])}")
            continue
        lines.append(f"  {side} {shown(p['ref'])}: {p['time_ms']:.4f} ms, bound by {p['bound']}"
                     + (f", {p['tflops']:.1f} TFLOP/s" if p["tflops"] else "")
                     + (f", {p['gbps']:.0f} GB/s DRAM" if p["gbps"] else ""))
    if data.get("speedup") is None:
        return "\n".join(lines)
    lines.append(f"  speedup B over A: {data['speedup']:.2f}x")
    lines.append(f"  {'term':47} {'A':>11} {'B':>11} {'change':>9}  bound of")
    for term in data["terms"]:
        change = term["change"]
        lines.append(f"  {term['term'][:47]:47} {_ms(term['a_ms']):>11} {_ms(term['b_ms']):>11} "
                     f"{'' if change is None else f'{100 * change:+.0f} %':>9}  {' and '.join(term['bound'])}".rstrip())
    return "\n".join(lines)

"""`ttinspect list FILE` on a terminal (a user's file, or a capture: one row per compile of the run)."""

from __future__ import annotations

from typing import Any, Mapping

from ttinspect.render import term
from ttinspect.render.glance import print_device_lines
from ttinspect.report.model import device_line

MAX_GRIDS = 3  # per row; `--json` has every grid the capture recorded


def file_listing_table(listing: Mapping[str, Any]) -> None:
    from rich.table import Table

    from ttinspect.render.quoted import data  # imports rich: only when a table is printed

    if "compiles" in listing:
        capture_listing_table(listing)
        return
    console = term.console()
    where = f"{listing['module']} (from {listing['file']})" if listing.get("module") else listing["file"]
    table = Table(title=f"kernels in {data(where)}", title_justify="left")
    for column in ("name", "kind", "line", "parameters (constexpr in bold)"):
        table.add_column(column, overflow="fold")
    for k in listing["kernels"]:
        kind = k["kind"] + (f" ({k['autotune_configs']} configs)" if k["autotune_configs"] else "")
        helper = k.get("helper")
        if helper:
            kind += " (helper: " + (f"called by {', '.join(helper['called_by'])}" if helper["called_by"]
                                    else "returns a value") + ")"
        params = ", ".join(f"[bold]{data(p)}[/bold]" if p in k["constexprs"] else data(p) for p in k["params"])
        table.add_row(data(k["name"]), data(kind), str(k["line"]), params)
    console.print(table)
    # the autotune configs counted are those this device's answers chose
    print_device_lines(console, [device_line(listing["device"]) if listing.get("device") else None])
    if not listing["kernels"]:
        console.print("[dim]no @triton.jit kernels at the file's top level[/dim]")
    if listing["examples"]:
        examples = Table(title="examples (TTINSPECT_EXAMPLES)", title_justify="left")
        for column in ("name", "kernel", "given", "description"):
            examples.add_column(column, overflow="fold")
        for e in listing["examples"]:
            given = [f"{len(e['args'])} args" if e["args"] else "", "signature" if e["signature"] else "",
                     f"config {e['autotune_config']}" if e["autotune_config"] is not None else "",
                     " ".join(f"{k}={v}" for k, v in e["config"].items()), f"@{e['arch']}" if e["arch"] else ""]
            examples.add_row(data(e["name"]), data(e["kernel"]), data(" ".join(g for g in given if g)),
                             data(e["description"]))
        console.print(examples)
    name = listing.get("suggested") or "NAME"  # a kernel, never a device helper (kernel/helpers.py)
    ref = listing.get("ref", listing["file"])
    console.print(f"[dim]inspect one: ttinspect report {data(ref)}:{data(name)} --arg ... | --signature ...[/dim]")


def capture_listing_table(listing: Mapping[str, Any]) -> None:
    """refs/capture_listing.py's rows, the most launched first."""
    from rich.table import Table

    from ttinspect.render.quoted import data as escape  # imports rich: only when a table is printed

    console = term.console()
    run = listing["run"]
    device = (run.get("device") or {}).get("name") or ("Triton's interpreter" if run["interpreter"] else "no GPU")
    said = [" ".join(run["argv"]) or "?", device, f"Triton {run['triton'] or '?'}"]
    if not run["complete"]:
        said.append("the run stopped before the capture ended")
    table = Table(title=escape(f"compiles in {listing['capture']} ({'; '.join(said)})"), title_justify="left")
    table.add_column("kernel / defined at", overflow="fold", ratio=3)
    table.add_column("launches", justify="right", no_wrap=True)
    table.add_column("grids", overflow="fold", ratio=1)
    table.add_column("config / autotune", overflow="fold", ratio=4)
    table.add_column("target", no_wrap=True)
    table.add_column("source", no_wrap=True)
    for row in listing["compiles"]:
        where = f"{(row['file'] or '?').rsplit('/', 1)[-1]}:{row['line'] or '?'}"
        where += " (inductor)" if row["inductor"] else ""
        grids = ", ".join("x".join(map(str, g)) for g in row["grids"][:MAX_GRIDS])
        grids += f" +{len(row['grids']) - MAX_GRIDS}" if len(row["grids"]) > MAX_GRIDS else ""
        config = escape(" ".join(f"{k}={v}" for k, v in row["config"].items()) or "(none)")
        tuned = _tuned(row["autotune"])
        source = row["source"] if row["source"] == "same" else f"[bold]{escape(row['source'])}[/bold]"
        name = row["kernel"] + (f"#{row['number']}" if row["of"] > 1 else "")  # as FILE.ttcap:NAME#N takes it
        table.add_row(f"{escape(name)}\n[dim]{escape(where)}[/dim]", str(row["launches"]), escape(grids or "-"),
                      config + (f"\n[dim]{escape(tuned)}[/dim]" if tuned else ""), escape(row["target"] or "-"),
                      source)
    console.print(table)
    if not listing["compiles"]:
        console.print("[dim]the run compiled no Triton kernel[/dim]")
        return
    first = listing["compiles"][0]["ref"]
    console.print(f"[dim]inspect one: ttinspect report {escape(first)}; every one: ttinspect check "
                  f"{escape(listing['capture'])}[/dim]")


def _tuned(results: list[Mapping[str, Any]]) -> str:
    """`best of 8 (0.120 ms)` / `#3 of 8: 0.250 ms, best 0.120`, per autotuning that compiled the config."""
    out = []
    for result in results:
        ms = f"{result['ms']:.3f} ms" if result["ms"] is not None else "not timed"
        if result["winner"]:
            out.append(f"best of {result['configs']} ({ms})")
        else:
            best = f", best {result['best_ms']:.3f}" if result["best_ms"] is not None else ""
            out.append(f"#{result['config']} of {result['configs']}: {ms}{best}")
    return "; ".join(out)

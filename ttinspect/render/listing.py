"""`ttinspect list FILE` on a terminal (a user's file, or a capture: one row per compile of the run)."""

from __future__ import annotations

import shlex
from typing import Any, Mapping

from ttinspect.render import term
from ttinspect.render.glance import print_device_lines
from ttinspect.report.model import device_line

MAX_GRIDS = 3  # per row; `--json` has every grid the capture recorded
MAX_KEYS = 3  # autotune keys per outcome line of a row; `--json` has every one


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
    said = [shlex.join(run["argv"]) or "?"]  # as typed: `python -m pytest -q`, quoted where a shell would
    if run.get("exit_code") is not None:  # unknown for a block of Python (`with ttinspect.capture(...)`)
        said.append(f"exit code {run['exit_code']}")
    said += [device, f"Triton {run['triton'] or '?'}"]
    if not run["complete"]:
        said.append("the run stopped before the capture ended")
    if run.get("made"):  # on a CPU: as the target (`capture --as`), or the interpreter's CPU branches
        said.append(run["made"])
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
        tuned = _tuned(row["autotune"], row["kernel"])
        source = row["source"] if row["source"] == "same" else f"[bold]{escape(row['source'])}[/bold]"
        name = row["kernel"] + (f"#{row['number']}" if row["of"] > 1 else "")  # as FILE.ttcap:NAME#N takes it
        table.add_row(f"{escape(name)}\n[dim]{escape(where)}[/dim]", str(row["launches"]), escape(grids or "-"),
                      config + "".join(f"\n[dim]{escape(line)}[/dim]" for line in tuned),
                      escape(row["target"] or "-"), source)
    console.print(table)
    if not listing["compiles"]:
        console.print("[dim]the run compiled no Triton kernel[/dim]")
        return
    first = listing["compiles"][0]["ref"]
    kernel = first.rsplit(":", 1)[-1]  # NAME[#N][@triton=X]: a suffix the capture was named with goes on too
    suffix = kernel[kernel.index("@"):] if "@" in kernel else ""
    console.print(f"[dim]inspect one: ttinspect report {escape(first)}; every one: ttinspect check "
                  f"{escape(listing['capture'] + suffix)}[/dim]")


def _tuned(results: list[Mapping[str, Any]], kernel: str) -> list[str]:
    """How the autotuner dealt with this compile, one line per outcome, each naming the keys it tuned for:
    `chosen for n=64; n=128 (of 4, not timed)`, `tried for n=64 (#3 of 4, 0.250 ms); chose #4 (0.120 ms)`."""
    shown = _key_names(results)
    outcomes: dict[tuple[Any, ...], list[str]] = {}
    for result in results:
        timed = result["ms"] is not None or result["best_ms"] is not None
        # untimed outcomes (the interpreter's) of several keys read as one line; a timed one keeps its times
        same = (result["winner"], result["chosen"], result["configs"], result["config"],
                (result["ms"], result["best_ms"]) if timed else None)
        outcomes.setdefault(same, []).append(_key_text(result["key"], shown))
    lines = []
    for (winner, chosen, configs, config, times), keys in sorted(outcomes.items(), key=lambda o: not o[0][0]):
        where = "; ".join(keys[:MAX_KEYS]) + (f" +{len(keys) - MAX_KEYS} more" if len(keys) > MAX_KEYS else "")
        ms, best_ms = times if times is not None else (None, None)
        if winner:
            lines.append(f"chosen for {where} (of {configs}, " + (f"{ms:.3f} ms)" if ms is not None else "not timed)"))
        else:
            lines.append(f"tried for {where} (#{config} of {configs}, "
                         + (f"{ms:.3f} ms)" if ms is not None else "not timed)")
                         + (f"; chose {chosen.removeprefix(kernel) or chosen}" if chosen else "")
                         + (f" ({best_ms:.3f} ms)" if best_ms is not None else ""))
    return lines


def _key_names(results: list[Mapping[str, Any]]) -> set[str]:
    """The key entries worth showing: the `key=` arguments' values; an argument's dtype (Triton adds one per
    tensor) only where it differs between this compile's tunings, or where the key has nothing else."""
    names = {name for result in results for name in result["key"]}
    plain = {name for name in names if not name.endswith(".dtype")}
    varying = {name for name in names - plain if len({repr(r["key"].get(name)) for r in results}) > 1}
    return plain | varying if plain else names


def _key_text(key: Mapping[str, Any], shown: set[str]) -> str:
    said = [f"{name}={str(value).removeprefix('torch.')}" for name, value in key.items() if name in shown]
    return " ".join(said) or "(no key)"

"""`ttinspect list FILE` on a terminal."""

from __future__ import annotations

from typing import Any, Mapping

from ttinspect.render import term


def file_listing_table(listing: Mapping[str, Any]) -> None:
    from rich.table import Table

    console = term.console()
    where = f"{listing['module']} (from {listing['file']})" if listing.get("module") else listing["file"]
    table = Table(title=f"kernels in {where}", title_justify="left")
    for column in ("name", "kind", "line", "parameters (constexpr in bold)"):
        table.add_column(column, overflow="fold")
    for k in listing["kernels"]:
        kind = k["kind"] + (f" ({k['autotune_configs']} configs)" if k["autotune_configs"] else "")
        helper = k.get("helper")
        if helper:
            kind += " (helper: " + (f"called by {', '.join(helper['called_by'])}" if helper["called_by"]
                                    else "returns a value") + ")"
        params = ", ".join(f"[bold]{p}[/bold]" if p in k["constexprs"] else p for p in k["params"])
        table.add_row(k["name"], kind, str(k["line"]), params)
    console.print(table)
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
            examples.add_row(e["name"], e["kernel"], " ".join(g for g in given if g), e["description"])
        console.print(examples)
    name = listing.get("suggested") or "NAME"  # a kernel, never a device helper (kernel/helpers.py)
    ref = listing.get("ref", listing["file"])
    console.print(f"[dim]inspect one: ttinspect report {ref}:{name} --arg ... | --signature ...[/dim]")

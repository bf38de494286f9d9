"""`ttinspect cache [DIR]`: the kernels in Triton's cache, each inspectable as `cache:PREFIX`."""

from __future__ import annotations

from pathlib import Path

import click

from ttinspect.cli.app import cli
from ttinspect.files.terminal_text import shown as quoted
from ttinspect.cli.common import VALUE, emit_json


@cli.command("cache")
@click.argument("directory", required=False, metavar="[DIR]")
@click.option("--name", "name_glob", default=None, metavar="GLOB", type=VALUE,
              help="Only kernels whose name matches, e.g. 'triton_per_*'.")
@click.option("--sort", default=None, metavar="KEY", type=VALUE,
              help="Sort by id, name, target, num_warps, num_stages, shared, registers, spills, depth, "
                   "tensor_core_path, source or triton_version; prefix - for descending (--sort -registers).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def cache_command(directory: str | None, name_glob: str | None, sort: str | None, as_json: bool) -> None:
    """Every kernel in a Triton cache (DIR, else TRITON_CACHE_DIR, else ~/.triton/cache): the ones your
    programs compiled and those torch.compile generated. Read-only. Inspect one with
    `ttinspect report cache:PREFIX` (TRITON_CACHE_DIR must point at DIR)."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.render.triton_cache_rows import list_cache
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.caches.triton import default_dir

    root = Path(directory) if directory else default_dir()
    rows = list_cache(root, name=name_glob, sort=sort)
    if as_json:
        emit_json([row.as_dict() for row in rows])
        return
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.render.cache_table import cache_table

    cache_table(rows, str(root))


@cli.command("cache-info")
@click.option("--clear", is_flag=True, help="Remove every compiled entry and derived file ttinspect made (kept: "
                                            "autotune results, which are GPU measurements, toolchains, and anything "
                                            "ttinspect did not make; a folder that is not ttinspect's is refused).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def cache_info_command(clear: bool, as_json: bool) -> None:
    """ttinspect's own cache (TTINSPECT_CACHE_DIR, else $XDG_CACHE_HOME/ttinspect): where it is, how big,
    which Tritons and targets its entries are for; --clear reclaims the disk."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.caches.info import cache_info
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.caches.info import clear as clear_cache

    if clear:
        cleared = clear_cache()
        info = cache_info()
        if as_json:
            emit_json({"removed_entries": cleared.entries, "removed": cleared.removed,
                       "freed_bytes": cleared.freed_bytes, "left_alone": cleared.strays, "after": info.as_dict()})
            return
        what = ", ".join(f"{n} {kind}" for kind, n in cleared.removed.items()) or "nothing"
        click.echo(f"removed {what}; freed {_mib(cleared.freed_bytes)} from {info.root}"
                   + (f"; kept {info.autotune_results} autotune result(s)" if info.autotune_results else "")
                   + (f"; kept {info.toolchains} toolchain(s)" if info.toolchains else ""))
        if cleared.strays:
            shown = ", ".join(cleared.strays[:5]) + (f" and {len(cleared.strays) - 5} more"
                                                      if len(cleared.strays) > 5 else "")
            click.echo(f"left alone (not made by ttinspect): {quoted(shown)}")
        return
    info = cache_info()
    if as_json:
        emit_json(info.as_dict())
        return
    click.echo(f"ttinspect cache: {info.root}" + ("" if info.exists else " (not created yet)"))
    if not info.exists:
        return
    click.echo(f"  size:      {_mib(info.total_bytes)} in all; "
               f"compiled entries {info.entries} ({_mib(info.entry_bytes)})")
    if info.by_triton:
        click.echo("  triton:    " + ", ".join(f"{v} ({n})" for v, n in sorted(info.by_triton.items())))
        click.echo("  targets:   " + ", ".join(f"{t} ({n})" for t, n in sorted(info.by_target.items())))
    for label, count, why in (("old format", info.old_format, "written by an older ttinspect; never read"),
                              ("damaged", info.damaged, "compiled again when next used"),
                              ("leftovers", info.leftovers, "of interrupted writes")):
        if count:
            click.echo(f"  {label + ':':<10} {count} ({why})")
    for name, size in sorted(info.other_bytes.items()):
        click.echo(f"  {name + ':':<10} {_mib(size)}")
    if info.autotune_results:
        click.echo(f"  autotune:  {info.autotune_results} result(s) (kept by --clear)")
    if info.toolchains:
        click.echo(f"  toolchains: {info.toolchains} Triton release(s), {_mib(info.toolchain_bytes)} "
                   "(kept by --clear; `ttinspect toolchains --remove X.Y.Z`)")
    click.echo("  reclaim:   ttinspect cache-info --clear")


def _mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 else f"{size / 1024:.0f} KiB"

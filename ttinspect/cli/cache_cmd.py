"""`ttinspect cache [DIR]`: the kernels in Triton's cache, each inspectable as `cache:PREFIX`."""

from __future__ import annotations

import click

from .app import cli
from .common import emit_json


@cli.command("cache")
@click.argument("directory", required=False, metavar="[DIR]")
@click.option("--name", "name_glob", default=None, metavar="GLOB",
              help="Only kernels whose name matches, e.g. 'triton_per_*'.")
@click.option("--sort", default=None, metavar="KEY",
              help="Sort by id, name, target, num_warps, num_stages, shared, registers, spills, depth, "
                   "tensor_core_path, source or triton_version; prefix - for descending (--sort -registers).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def cache_command(directory: str | None, name_glob: str | None, sort: str | None, as_json: bool) -> None:
    """Every kernel in a Triton cache (DIR, else TRITON_CACHE_DIR, else ~/.triton/cache): the ones your
    programs compiled and those torch.compile generated. Read-only. Inspect one with
    `ttinspect report cache:PREFIX` (TRITON_CACHE_DIR must point at DIR)."""
    from ..cache_listing import list_cache
    from ..tritoncache import default_dir

    root = directory or default_dir()
    rows = list_cache(root, name=name_glob, sort=sort)
    if as_json:
        emit_json([row.as_dict() for row in rows])
        return
    from ..render.cache_table import cache_table

    cache_table(rows, str(root))

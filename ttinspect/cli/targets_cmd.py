"""`ttinspect targets`: the NVIDIA and AMD targets, their limits, and which Tritons compile for them."""

from __future__ import annotations

import click

from .app import cli
from .common import emit_json


@cli.command("targets")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def targets_command(as_json: bool) -> None:
    """Every NVIDIA target: the GPUs, the per-SM limits occupancy is computed from (CUDA C++ Programming
    Guide), whether the installed Triton compiles for it, and which Triton releases do (measured)."""
    from ..versions import installed, target_rows

    rows = target_rows()
    if as_json:
        emit_json(rows)
        return
    version = installed()
    here = f"Triton {version[0]}.{version[1]}" if version else "Triton (not installed)"

    def kib(value):
        return "—" if value is None else f"{value // 1024} KB"

    click.echo(f"{'target':<8} {'GPUs':<26} {'smem/block':>10} {'smem/SM':>8} {'warps':>5} {'blocks':>6}  "
               f"{here:<12} compiled by")
    for row in rows:
        usable = {True: "yes", False: "no", None: "not measured"}[row["installed_triton_compiles"]]
        if row["installed_triton_compiles"] and not row["usable"]:
            usable = "no limits"
        click.echo(f"{row['target']:<8} {row['gpus'][:26]:<26} {kib(row['max_shared_per_block']):>10} "
                   f"{kib(row['shared_per_sm']):>8} {row['max_warps_per_sm'] or '—':>5} "
                   f"{row['max_blocks_per_sm'] or '—':>6}  {usable:<12} {row['tritons']}")
    click.echo("AMD (gfx*): smem = LDS, SM = CU, warps = waves (64 lanes on CDNA, 32 on RDNA), blocks = workgroups")

"""`ttinspect targets`: the NVIDIA and AMD targets, their limits, and which Tritons compile for them."""

from __future__ import annotations

import click

from ttinspect.cli.app import cli
from ttinspect.cli.common import emit_json


@cli.command("targets")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def targets_command(as_json: bool) -> None:
    """Every NVIDIA target: the GPUs, the per-SM limits occupancy is computed from (CUDA C++ Programming
    Guide), whether the installed Triton compiles for it, and which Triton releases do (measured)."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.targets.releases import installed, target_rows

    rows = target_rows()
    if as_json:
        emit_json(rows)
        return
    version = installed()
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.render.targets_table import targets_table

    targets_table(rows, f"Triton {version[0]}.{version[1]}" if version else "Triton (not installed)")

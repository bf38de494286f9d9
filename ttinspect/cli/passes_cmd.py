"""`ttinspect passes`: the compiler's pass-by-pass history of a kernel (logic in ttinspect/passes/)."""

from __future__ import annotations

import sys

import click

from ttinspect.errors import UsageError
from ttinspect.cli.app import cli
from ttinspect.cli.common import REF_HELP, VALUE, emit_json, options_from, ref_options


@cli.command("passes", epilog=REF_HELP)
@click.argument("ref", metavar="REF")
@ref_options
@click.option("--show", "show", default=None, metavar="PASS", type=VALUE,
              help="One pass's IR before/after as a renumbered diff: its argument (tritongpu-pipeline), C++ "
                   "name, `canonicalize#2` for a pass that runs several times, or its index.")
@click.option("--loop", is_flag=True, help="Only the main loop (the innermost scf.for holding a dot).")
@click.option("--all", "show_all", is_flag=True, help="List the passes that changed nothing too.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def passes_command(ref: str, arch: str | None, settings: tuple[str, ...], args: tuple[str, ...],
                   signature: str | None, config: str | None, show: str | None, loop: bool, show_all: bool,
                   as_json: bool) -> None:
    """Every compiler pass REF went through: what it changed (lines, ops) and which facts appeared there
    (the first compile with per-pass dumps takes a second; later runs read the cache)."""
    from ttinspect.passes import history  # loaded when the command runs: every command module is imported at start-up
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.refs.resolver import resolve_one

    if show_all and show:
        raise UsageError("--all lists the timeline; --show prints one pass: give one of them")
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.engine.builds import compile_with_pass_dumps
    from ttinspect.report.model import build_device_line

    with compile_with_pass_dumps():  # a cold build compiles once, keeping the dumps
        built = resolve_one(ref, options_from(arch, settings, args, signature, config))
    passes = history(built)
    device = {"device": line} if (line := build_device_line(built)) else {}  # docs/virtual-device.md
    if show is not None:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.passes.show import pass_diff
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.passes.store import raw_dump

        result = pass_diff(raw_dump(built), passes.find(show), loop=loop)
        if as_json:
            emit_json({"label": built.label, "target": built.target.name, **device, **result.as_dict()})
            return
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.render.highlight import should_color
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.render.passes import pass_diff_text

        colored = should_color(sys.stdout)
        click.echo(pass_diff_text(built.header(), result, color=colored), nl=False, color=colored)
        return
    loop_counts = None
    if loop:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.passes.show import loop_line_counts
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.passes.store import raw_dump

        loop_counts = loop_line_counts(raw_dump(built), passes.passes if show_all else passes.rows)
    if as_json:
        data = {**device, **passes.as_dict()}
        if loop_counts is not None:
            data["loop_lines"] = {str(i): None if c is None else {"added": c[0], "removed": c[1]}
                                  for i, c in loop_counts.items()}
        emit_json(data)
        return
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.render.passes import timeline_table

    timeline_table(built.header(), passes, show_all=show_all, loop_counts=loop_counts)

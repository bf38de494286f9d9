"""`ttinspect html`: a self-contained HTML page of one kernel or a diff of two, or of a captured run an index
and a page per compile (logic in ttinspect/html/)."""

from __future__ import annotations

import click

from ttinspect.errors import UsageError
from ttinspect.cli.app import cli
from ttinspect.cli.common import REF_HELP, VALUE, options_from, ref_options


@cli.command("html", epilog=REF_HELP)
@click.argument("refs", nargs=-1, required=True, metavar="REF [REF]")
@ref_options
@click.option("-o", "--out", required=True, metavar="FILE", help="The HTML file to write (its folder must exist).")
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@click.option("--passes/--no-passes", default=True, show_default=True,
              help="Each kernel's compiler-pass timeline, and for two where they part (one more compile each, "
                   "the first time).")
@click.option("--stages", default=None, metavar="LIST", type=VALUE,
              help="The stage panes to include, comma-separated (ttir,ttgir,llir,ptx,sass; default all): "
                   "fewer panes, a smaller file.")
def html_command(refs: tuple[str, ...], arch: str | None, settings: tuple[str, ...], args: tuple[str, ...],
                 signature: str | None, config: str | None, out: str, force: bool, passes: bool,
                 stages: str | None) -> None:
    """Write one HTML page about REF, or about two kernels side by side (`naive opt`): the facts, the check
    findings, registers and occupancy, and every stage highlighted, each instruction linked to its Python
    line. The file fetches nothing (CSS and JavaScript inline): open it from disk or keep it as a CI
    artifact. --arch/--set/--arg/--signature/--config apply to every REF. A capture (FILE.ttcap): an index of
    the run at FILE, the worst compile first, and each compile's page in the folder FILE's-name-kernels/."""
    if len(refs) > 2:
        raise UsageError(f"html shows one kernel or two side by side, not {len(refs)}")
    from contextlib import nullcontext

    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.engine.builds import compile_with_pass_dumps
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.html.write import write_html

    options = options_from(arch, settings, args, signature, config)
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.refs.capture_listing import names_several

    # a cold build compiles once, keeping the dumps the timeline reads
    with compile_with_pass_dumps() if passes else nullcontext():
        if len(refs) == 1 and names_several(refs[0]):  # a capture: an index and a page per compile
            # loaded when the command runs: every command module is imported at start-up
            from ttinspect.html.capture_index import pages_folder, write_capture_html

            path = write_capture_html(refs[0], out, options=options, force=force, passes=passes, stages=stages)
            click.echo(f"{path} ({path.stat().st_size / 1e6:.1f} MB), each compile's page in {pages_folder(path)}")
            return
        path = write_html(list(refs), out, options=options, force=force, passes=passes, stages=stages)
    click.echo(f"{path} ({path.stat().st_size / 1e6:.1f} MB)")

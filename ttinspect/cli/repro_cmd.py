"""`ttinspect repro FILE.ttcap:KERNEL[#N] -o repro.py`: a standalone script replaying one captured launch."""

from __future__ import annotations

import click

from ttinspect.cli.app import cli

REPRO_HELP = """\b
Examples:
  ttinspect repro step.ttcap:matmul_kernel -o repro.py
  ttinspect repro step.ttcap:attn_fwd#2 -o attn.py --force
  ttinspect repro step.ttcap:matmul_kernel:num_stages=4 -o stages4.py
  TRITON_INTERPRET=1 python repro.py      # on the CPU, through Triton's interpreter

\b
Exit status:
  0    the script was written
  2    the capture lacks what a replay needs (a launch, a grid, an argument summary), or -o exists"""


@cli.command("repro", epilog=REPRO_HELP)
@click.argument("ref", metavar="FILE.ttcap:KERNEL[#N][:KEY=VALUE,...]")
@click.option("-o", "--output", "output", required=True, metavar="FILE", help="The Python script to write.")
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
def repro_command(ref: str, output: str, force: bool) -> None:
    """Write a Python script that replays a captured launch: it imports the kernel from the file the capture
    names, makes fresh random tensors of the captured shapes, strides and dtypes, passes the captured
    scalars, constexprs and options, launches on the first captured grid ('cuda', or the CPU under
    TRITON_INTERPRET=1) and times it with triton.testing.do_bench on a GPU."""
    from ttinspect.capture.repro import script  # loaded when the command runs, not at every start-up
    from ttinspect.files.outputs import check_output, write_atomically  # as above
    from ttinspect.refs.captured import replay_plan  # as above
    from ttinspect.refs.captured_source import status  # as above
    from ttinspect.caches.store import warn  # as above
    from ttinspect.files.terminal_text import shown  # as above

    out = check_output(output, force=force, option="-o")
    _, record, replay = replay_plan(ref)
    label = replay.label
    text = script(replay)
    if record.file and status(record) == "changed":
        warn(f"{label}: {record.file} changed since the capture; the script replays the file as it is then")
    write_atomically(out, text, force=force)
    click.echo(shown(f"ttinspect: wrote {output}: replays {label} (run: python {output})"), err=True)

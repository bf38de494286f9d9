"""`ttinspect capture -o FILE -- CMD ...`: record every Triton kernel a program compiles and launches."""

from __future__ import annotations

import sys

import click

from ttinspect.cli.app import cli


CAPTURE_HELP = """\b
Examples:
  ttinspect capture -o step.ttcap -- python train.py --steps 3
  ttinspect capture -o tests.ttcap.gz -- python -m pytest tests/ops -q
  TRITON_INTERPRET=1 ttinspect capture -o cpu.ttcap -- python demo.py
  ttinspect list step.ttcap

\b
Exit status:
  the program's (128 + N when signal N ended it)
  2    FILE exists (without --force) or cannot be written, or CMD cannot be run"""


@cli.command("capture", epilog=CAPTURE_HELP,
             context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("-o", "--output", "output", required=True, metavar="FILE",
              help="The capture file to write (.ttcap; .ttcap.gz is gzip-compressed).")
@click.option("--gzip", "compress", is_flag=True, default=None, help="Compress the capture whatever its name.")
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- CMD [ARGS]...")
def capture_command(output: str, compress: bool | None, force: bool, command: tuple[str, ...]) -> None:
    """Run CMD and record every Triton kernel its Python processes compile and launch: the specialization,
    constexprs and options of each compile, the target, and per launch site the count, grids and argument
    shapes (never tensor data); autotuner configs and timings; heuristics' values. Then `ttinspect list FILE`,
    `ttinspect report FILE:KERNEL`, `check`, `diff`, `html` take the capture (docs/capture.md).

    The exit code is CMD's. `TRITON_INTERPRET=1 ttinspect capture ...` records a run of Triton's
    interpreter on the CPU."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.capture.run import run

    ran = run(command, output, compress=compress, force=force)
    merged = ran.merged
    click.echo(f"ttinspect: captured {merged.compiles} compile(s) and {merged.launches} launch(es) from "
               f"{merged.processes} Python process(es) into {output}", err=True)
    for warning in merged.warnings:
        click.echo(f"ttinspect: warning: {warning}", err=True)
    if merged.processes == 0:
        click.echo("ttinspect: warning: no Python process of the program was recorded (it started none, or "
                   "started Python with -S, -I or -E, which skip the bootstrap)", err=True)
    elif not merged.complete:
        how = f"ended by {ran.signal}" if ran.signal else "ended before its recording did (a crash or os._exit)"
        click.echo(f"ttinspect: warning: the program {how}; the capture holds what ran until then and "
                   "has no end record", err=True)
    sys.exit(ran.exit_code)

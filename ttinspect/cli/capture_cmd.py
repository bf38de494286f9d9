"""`ttinspect capture -o FILE -- CMD ...`: record every Triton kernel a program compiles and launches."""

from __future__ import annotations

import signal
import sys

import click

from ttinspect.cli.app import cli
from ttinspect.errors import EXIT_FAILED
from ttinspect.files.terminal_text import shown


CAPTURE_HELP = """\b
Examples:
  ttinspect capture -o step.ttcap -- python train.py --steps 3
  ttinspect capture -o tests.ttcap.gz -- python -m pytest tests/ops -q
  TRITON_INTERPRET=1 ttinspect capture -o cpu.ttcap -- python demo.py
  ttinspect list step.ttcap

\b
Exit status:
  the program's (128 + N when signal N ended it), when the capture is whole
  1    the program exited 0 but the capture is not whole (each loss is one line on stderr and
       in the end record's `lost`); a program that failed keeps its own code
  2    FILE exists (without --force) or cannot be written, or CMD cannot be run
  128 + N  signal N stopped ttinspect while it joined the parts (FILE is written whole, what it
       could not wait for is listed as lost)"""

MAX_LOST_LINES = 8  # on stderr; the end record lists them all


@cli.command("capture", epilog=CAPTURE_HELP,
             context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("-o", "--output", "output", required=True, metavar="FILE",
              help="The capture file to write (.ttcap; .ttcap.gz is gzip-compressed).")
@click.option("--gzip", "compress", is_flag=True, default=None, help="Compress the capture whatever its name.")
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
@click.option("--wait", "wait", type=click.FloatRange(0, 3600), default=10.0, show_default=True, metavar="SECONDS",
              help="Once the program ended, how long to wait for processes it left running that are still "
                   "recording; what they do later is listed as lost.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- CMD [ARGS]...")
def capture_command(output: str, compress: bool | None, force: bool, wait: float,
                    command: tuple[str, ...]) -> None:
    """Run CMD and record every Triton kernel its Python processes compile and launch: the specialization,
    constexprs and options of each compile, the target, and per launch site the count, grids and argument
    shapes (never tensor data); autotuner configs and timings; heuristics' values. Then `ttinspect list FILE`,
    `ttinspect report FILE:KERNEL`, `check`, `diff`, `html` take the capture (docs/capture.md).

    The exit code is CMD's; 1 when CMD exited 0 but something was not recorded (a process killed, a full
    disk, the parts folder removed: each is said in one line). `TRITON_INTERPRET=1 ttinspect capture ...`
    records a run of Triton's interpreter on the CPU."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.capture.run import run

    ran = run(command, output, compress=compress, force=force, wait=wait,
              say=lambda line: click.echo(f"ttinspect: {line}", err=True))
    merged = ran.merged
    click.echo(f"ttinspect: captured {merged.compiles} compile(s) and {merged.launches} launch(es) from "
               f"{merged.processes} Python process(es) into {output}", err=True)
    for warning in merged.warnings:
        click.echo(f"ttinspect: warning: {shown(warning)}", err=True)
    if merged.processes == 0 and not merged.lost:
        click.echo("ttinspect: warning: no Python process of the program was recorded (it started none, or "
                   "started Python with -S, -I or -E, which skip the bootstrap)", err=True)
    for line in merged.lost[:MAX_LOST_LINES]:
        click.echo(f"ttinspect: warning: not in the capture: {shown(line)}", err=True)  # names the program's argv
    if len(merged.lost) > MAX_LOST_LINES:
        click.echo(f"ttinspect: warning: not in the capture: {len(merged.lost) - MAX_LOST_LINES} more losses, "
                   f"listed in {output}'s end record", err=True)
    if ran.stopped_by is not None:
        click.echo(f"ttinspect: stopped by {signal_name(ran.stopped_by)} while joining the parts; {output} "
                   "holds what was recorded until then", err=True)
        sys.exit(128 + ran.stopped_by)
    # A capture that is not whole never passes for a clean run: a program that failed keeps its own code
    sys.exit(ran.exit_code if merged.complete or ran.exit_code != 0 else EXIT_FAILED)


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"

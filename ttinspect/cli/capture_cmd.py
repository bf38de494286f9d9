"""`ttinspect capture -o FILE -- CMD ...`: record every Triton kernel a program compiles and launches."""

from __future__ import annotations

import signal
import sys

import click

from ttinspect.cli.app import cli
from ttinspect.cli.common import device_props_option
from ttinspect.errors import EXIT_FAILED, UsageError
from ttinspect.files.terminal_text import shown


CAPTURE_HELP = """\b
Examples:
  ttinspect capture --as sm_90 -- python train.py                 # writes train.ttcap
  ttinspect capture -o step.ttcap -- python train.py --steps 3
  ttinspect capture -o tests.ttcap.gz -- python -m pytest tests/ops -q
  ttinspect capture --as sm_90 -o h100.ttcap -- python train.py   # on a laptop, as an H100
  ttinspect capture --as gfx942 -o mi300.ttcap -- python -m pytest tests/ops -q
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
@click.option("-o", "--output", "output", default=None, metavar="FILE",
              help="The capture file to write (.ttcap; .ttcap.gz is gzip-compressed). Default: named after the "
                   "program, in this folder (`python train.py` -> train.ttcap, `python -m pytest` -> "
                   "pytest.ttcap); an existing one is kept unless --force.")
@click.option("--gzip", "compress", is_flag=True, default=None, help="Compress the capture whatever its name.")
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
@click.option("--wait", "wait", type=click.FloatRange(0, 3600), default=10.0, show_default=True, metavar="SECONDS",
              help="Once the program ended, how long to wait for processes it left running that are still "
                   "recording; what they do later is listed as lost.")
@click.option("--as", "as_arch", metavar="ARCH", default=None,
              help="Run the program on this CPU as on ARCH's GPU (sm_90, gfx942...): the target's virtual device "
                   "answers every device question, tensors on \"cuda\" have shapes but no values, and each Triton "
                   "launch is recorded as that GPU would make it, never run (docs/capture.md).")
@click.option("--run-kernels", is_flag=True,
              help="With --as: run the kernels in Triton's interpreter, for a program whose host code reads values "
                   "its kernels compute (.item(), shapes from data).")
@click.option("--values", "host_values", is_flag=True,
              help="With --as: tensors on \"cuda\" hold the values torch computes on this CPU, for host code that "
                   "reads them (a bounds check, nonzero(), lengths); kernels are still recorded, not run, and what "
                   "a launch was given is unknown afterwards.")
@device_props_option
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- CMD [ARGS]...")
@click.pass_context
def capture_command(ctx: click.Context, output: str | None, compress: bool | None, force: bool, wait: float,
                    as_arch: str | None, run_kernels: bool, host_values: bool, command: tuple[str, ...]) -> None:
    """Run CMD and record every Triton kernel its Python processes compile and launch: the specialization,
    constexprs and options of each compile, the target, and per launch site the count, grids and argument
    shapes (never tensor data); autotuner configs and timings; heuristics' values. Then `ttinspect list FILE`,
    `ttinspect report FILE:KERNEL`, `check`, `diff`, `html` take the capture (docs/capture.md).

    The exit code is CMD's; 1 when CMD exited 0 but something was not recorded (a process killed, a full
    disk, the parts folder removed: each is said in one line). `--as sm_90` runs the program on this CPU as
    on an H100 and records what it would launch there; `TRITON_INTERPRET=1 ttinspect capture ...` records a
    run of Triton's interpreter on the CPU (its host code sees no GPU)."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.capture.run import run

    as_target = as_target_of(as_arch, run_kernels, ctx.meta.get("ttinspect.device_props", ()), host_values)
    if output is None:
        output = default_output(command)
    ran = run(command, output, compress=compress, force=force, wait=wait,
              say=lambda line: click.echo(f"ttinspect: {line}", err=True), as_target=as_target)
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


def as_target_of(arch: str | None, run_kernels: bool, device_props: tuple[str, ...], values: bool = False):
    """--as, --run-kernels, --values and --device-props as one typed value (None: the program runs as it is)."""
    if arch is None:
        if run_kernels or device_props or values:
            given = "--run-kernels" if run_kernels else "--values" if values else "--device-props"
            raise UsageError(f"{given} needs --as ARCH (the GPU the program runs as on this CPU)")
        return None
    if run_kernels and values:
        raise UsageError("--values or --run-kernels, not both: --run-kernels already gives tensors values (the "
                         "kernels' too)")
    from ttinspect.capture.run import AsTarget  # loaded when the command runs, as above
    from ttinspect.targets.lookup import parse_arch  # loaded when the command runs, as above
    from ttinspect.virtual.overrides import check_vendor, parse_device_props  # the same

    target = parse_arch(arch)
    check_vendor(parse_device_props(device_props), target.amd is not None, target.name)
    return AsTarget(target.name, tuple(device_props), run_kernels, values)


def default_output(command: tuple[str, ...]) -> str:
    """The capture's name when -o is not given: the program's own (the script's stem, the module run with -m,
    else the command's name), so that `ttinspect capture --as sm_90 -- python train.py` is enough."""
    from pathlib import PurePath

    words = list(command)
    if words and PurePath(words[0]).name.startswith("python"):
        rest = words[1:]
        while rest and rest[0].startswith("-") and rest[0] not in ("-m", "-c"):
            rest = rest[1:]  # the interpreter's own flags (-u, -X dev is rare enough to name the file "python")
        if len(rest) >= 2 and rest[0] == "-m":
            return f"{rest[1].rsplit('.', 1)[-1]}.ttcap"
        if rest and rest[0] != "-c":
            words = rest
    stem = PurePath(words[0]).stem if words else ""
    return f"{stem or 'run'}.ttcap"


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"

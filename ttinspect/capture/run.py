"""`ttinspect capture -o FILE -- CMD ...`: run a program with every Python process it starts recording
itself (the bootstrap folder first on its PYTHONPATH), then join their parts into FILE.

The program gets the terminal as if it ran alone: Ctrl-C reaches it (ttinspect waits, then writes what was
recorded); SIGTERM and SIGHUP sent to ttinspect are passed on to it. The exit code is the program's (128 + N
when signal N ended it, as shells say it).

Once it ended, processes it left running that still record (a fork child, a subprocess) are waited for, up to
`wait` seconds; a signal then (SIGTERM, SIGHUP, Ctrl-C) stops the waiting, never the writing: the file is
written whole, with what was not waited for in its `lost` list, and the command exits 128 + the signal. A
`ttinspect capture` run inside another one passes its parts on to the outer run's folder: captures nest.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from ttinspect.capture import lost, process
from ttinspect.capture.as_target import ENV_AS, ENV_DEVICE_PROPS, ENV_RUN_KERNELS, ENV_VALUES
from ttinspect.capture.merge import Merged, Run, merge
from ttinspect.capture.recording import ENV_FOLDER, ENV_ROOT, parts_folder
from ttinspect.errors import UsageError
from ttinspect.files.outputs import check_output

WAIT_SECONDS = 10.0  # how long the join waits for processes the program left running that still record
BOOT = Path(__file__).resolve().parent / "boot"
PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the ttinspect package


@dataclass
class Ran:
    exit_code: int
    signal: str | None  # the signal that ended the program, if one did
    merged: Merged
    stopped_by: int | None = None  # the signal that stopped ttinspect while it joined the parts


@dataclass(frozen=True)
class AsTarget:
    """`capture --as`: the GPU the program runs as, the device's overrides, and whether kernels run."""
    arch: str  # a target's name, as targets/ spells it ("sm_90", "gfx942")
    device_props: tuple[str, ...] = ()  # KEY=VALUE, checked by the caller
    run_kernels: bool = False  # in Triton's interpreter; else recorded, never run
    values: bool = False  # torch computes with values on the CPU (kernels still recorded, never run)


def program_environment(folder: Path, base: dict[str, str] | None = None,
                        as_target: AsTarget | None = None) -> dict[str, str]:
    """The program's environment: the caller's, plus where its Python processes record themselves (and, for
    `--as`, the target they run as: the interpreter only with --run-kernels)."""
    env = dict(os.environ if base is None else base)
    for name in (ENV_AS, ENV_DEVICE_PROPS, ENV_RUN_KERNELS, ENV_VALUES):  # an outer `capture --as` is not this run's
        env.pop(name, None)
    if as_target is not None:
        env[ENV_AS] = as_target.arch
        if as_target.device_props:
            env[ENV_DEVICE_PROPS] = "\n".join(as_target.device_props)
        if as_target.run_kernels:
            env[ENV_RUN_KERNELS] = env["TRITON_INTERPRET"] = "1"
        else:
            env.pop("TRITON_INTERPRET", None)
            if as_target.values:
                env[ENV_VALUES] = "1"
    env[ENV_FOLDER] = str(folder)
    env[ENV_ROOT] = str(PACKAGE_ROOT)
    env["PYTHONPATH"] = os.pathsep.join([str(BOOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def run(command: Sequence[str], out_path: str | os.PathLike, *, compress: bool | None = None,
        force: bool = False, wait: float = WAIT_SECONDS, say: Callable[[str], None] | None = None,
        as_target: AsTarget | None = None) -> Ran:
    """Run `command` recorded, and write the capture (see the module docstring); `say` gets a line for the
    user while the join waits; `as_target`: run as that GPU (as_target.py)."""
    out = check_output(out_path, force=force, option="-o")
    header = process.run_fields(process.header(list(command)))
    if as_target is not None:  # how the capture was made: a reader says so beside every kernel of it
        header.update(as_target=as_target.arch, kernels_run=as_target.run_kernels,
                      interpreter=as_target.run_kernels)
    outer = os.environ.get(ENV_FOLDER)  # this command runs inside another capture's program
    folder = parts_folder(out)
    token = lost.claim(folder)
    try:
        child = subprocess.Popen(list(command), env=program_environment(folder, as_target=as_target))
    except OSError as error:
        (folder / lost.CLAIM).unlink(missing_ok=True)
        folder.rmdir()
        raise UsageError(f"cannot run {command[0]}: {error.strerror or error} (nothing was recorded)") from None
    code = _wait(child)
    exit_code = 128 - code if code < 0 else code
    ended_by = _signal_name(-code) if code < 0 else None
    stopped: list[int] = []
    joining = Run(token, child.pid, ended_by, wait, lambda: bool(stopped), say,
                  Path(outer) if outer and Path(outer).is_dir() and Path(outer) != folder else None)
    with _signals_stop_waiting(stopped):
        merged = merge(folder, out, base_header=header, exit_code=exit_code, run=joining,
                       compress=compress if compress is not None else out.name.endswith(".gz"), force=force)
    return Ran(exit_code, ended_by, merged, stopped[0] if stopped else None)


@contextlib.contextmanager
def _signals_stop_waiting(stopped: list[int]) -> Iterator[None]:
    """While the parts are joined: SIGTERM, SIGHUP and Ctrl-C are noted in `stopped` (the join stops waiting
    for running processes and writes the file whole) instead of stopping ttinspect mid-write."""
    def note(signum: int, frame: Any) -> None:
        stopped.append(signum)

    previous: dict[int, Any] = {}
    for number in (int(signal.SIGINT), int(signal.SIGTERM), int(signal.SIGHUP)):
        try:
            if signal.getsignal(number) is not signal.SIG_IGN:  # nohup's ignored SIGHUP stays ignored
                previous[number] = signal.signal(number, note)
        except (OSError, ValueError):  # not the main thread: signals stay as they were
            pass
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:  # a real-time signal without a name
        return f"signal {number}"


def _wait(child: subprocess.Popen[Any]) -> int:
    """The program's return code; Ctrl-C is the program's to handle, SIGTERM/SIGHUP are passed on."""
    def forward(signum: int, frame: Any) -> None:
        try:
            child.send_signal(signum)
        except OSError:  # it has just ended
            pass

    previous: dict[int, Any] = {}
    handlers: tuple[tuple[int, Any], ...] = ((signal.SIGINT, signal.SIG_IGN), (signal.SIGTERM, forward),
                                             (signal.SIGHUP, forward))
    for number, handler in handlers:
        try:
            previous[number] = signal.signal(number, handler)
        except (OSError, ValueError):  # not the main thread: signals stay as they were
            pass
    try:
        return child.wait()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)

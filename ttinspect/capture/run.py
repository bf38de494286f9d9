"""`ttinspect capture -o FILE -- CMD ...`: run a program with every Python process it starts recording
itself (the bootstrap folder first on its PYTHONPATH), then join their parts into FILE.

The program gets the terminal as if it ran alone: Ctrl-C reaches it (ttinspect waits, then writes what was
recorded); SIGTERM and SIGHUP sent to ttinspect are passed on to it. The exit code is the program's (128 + N
when signal N ended it, as shells say it).
"""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ttinspect.capture import process
from ttinspect.capture.merge import Merged, merge
from ttinspect.capture.recording import ENV_FOLDER, ENV_ROOT, parts_folder
from ttinspect.errors import UsageError
from ttinspect.files.outputs import check_output

BOOT = Path(__file__).resolve().parent / "boot"
PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the ttinspect package


@dataclass
class Ran:
    exit_code: int
    signal: str | None  # the signal that ended the program, if one did
    merged: Merged


def program_environment(folder: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """The program's environment: the caller's, plus where its Python processes record themselves."""
    env = dict(os.environ if base is None else base)
    env[ENV_FOLDER] = str(folder)
    env[ENV_ROOT] = str(PACKAGE_ROOT)
    env["PYTHONPATH"] = os.pathsep.join([str(BOOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def run(command: Sequence[str], out_path: str | os.PathLike, *, compress: bool | None = None,
        force: bool = False) -> Ran:
    """Run `command` recorded, and write the capture (see the module docstring)."""
    out = check_output(out_path, force=force, option="-o")
    header = process.run_fields(process.header(list(command)))
    folder = parts_folder(out)
    try:
        child = subprocess.Popen(list(command), env=program_environment(folder))
    except OSError as error:
        folder.rmdir()
        raise UsageError(f"cannot run {command[0]}: {error.strerror or error} (nothing was recorded)") from None
    code = _wait(child)
    exit_code = 128 - code if code < 0 else code
    merged = merge(folder, out, base_header=header, exit_code=exit_code,
                   compress=compress if compress is not None else out.name.endswith(".gz"), force=force)
    return Ran(exit_code, _signal_name(-code) if code < 0 else None, merged)


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

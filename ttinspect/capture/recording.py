"""Recording on and off in this process: the session (session.py) and Triton's hooks (hooks.py) together.

`begin` is what the bootstrap of a captured child process (boot/sitecustomize.py), `ttinspect.capture()` and
the pytest option call; `finish` undoes it. The parts folder of a run is named by TTINSPECT_CAPTURE in a
captured program's environment, so that every Python process it starts records itself into it.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from typing import Any, Mapping

from ttinspect.capture import as_target, process, session

ENV_FOLDER = "TTINSPECT_CAPTURE"  # the run's parts folder: a Python process started with it records itself
ENV_ROOT = "TTINSPECT_CAPTURE_ROOT"  # the folder holding the ttinspect package the bootstrap imports
EXIT_WAIT = 1.0  # seconds os._exit waits for the session's lock before ending without the part's end

_real_exit: list[Any] = []  # os._exit as Python has it, while ours stands in for it


def parts_folder(out: Path) -> Path:
    """A new folder beside `out` for the parts of one run (hidden; removed once they are joined)."""
    folder = out.parent / f".{out.name}.{os.getpid()}-{secrets.token_hex(3)}.parts"
    folder.mkdir(mode=0o700)
    return folder


def begin(folder: Path, header: Mapping[str, Any] | None = None) -> session.Session:
    """Record this process into a new part of `folder`, with Triton's hooks installed."""
    started = session.start(folder, header if header is not None else process.header())
    if not _real_exit:  # os._exit skips atexit: a fork child ending so would leave its part without its end
        _real_exit.append(os._exit)
        os._exit = _close_then_exit  # type: ignore[assignment]  # it does not return either
    try:
        from ttinspect.capture import hooks  # only while recording: it patches Triton

        hooks.install(started)
    except Exception as error:  # a Triton the hooks do not know: the program still runs, unrecorded
        session.stop()
        print(f"ttinspect: warning: capture cannot hook this Triton ({type(error).__name__}: {error}); "
              "kernels of this process are not recorded", file=sys.stderr)
    return started


def finish(exit_code: int | None = None) -> None:
    """Stop recording this process: hooks removed, its part closed."""
    try:
        from ttinspect.capture import hooks  # only while recording: it patches Triton

        hooks.uninstall()
    except Exception as error:  # what the hooks replaced is theirs to restore; the part still closes
        print(f"ttinspect: warning: capture could not remove its hooks ({type(error).__name__}: {error})",
              file=sys.stderr)
    session.stop(exit_code)
    if _real_exit and os._exit is _close_then_exit:
        os._exit = _real_exit.pop()


def _close_then_exit(status: int) -> None:
    """os._exit while recording: report the pending counts and close the part (its `end`), then exit as asked.
    Never waits more than EXIT_WAIT for the session (a signal handler may have interrupted a write)."""
    try:
        running = session.current()
        if running is not None and not running.stopped:
            from ttinspect.capture import hooks  # loaded already: recording installed it

            if running.idle(EXIT_WAIT):
                hooks.flush()
                running.close(status if isinstance(status, int) else None)
    except BaseException:  # exiting is what was asked: nothing may stop it
        pass
    (_real_exit[0] if _real_exit else os._exit)(status)


def begin_from_environment() -> None:
    """In a process the run started: record it if TTINSPECT_CAPTURE names an existing parts folder (running
    as the target's GPU first, when the run was `capture --as`)."""
    folder = os.environ.get(ENV_FOLDER)
    if folder and Path(folder).is_dir() and session.current() is None:
        as_target.begin_from_environment()
        started = begin(Path(folder))
        target = as_target.target()
        if target is not None:
            started.set_device({"name": as_target.device_name(), **target})


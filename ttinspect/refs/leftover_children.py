"""Processes a user's file forked at import and left running: in the CLI's process they are ended when the
command ends, with one line saying so.

A fork's child runs the file's import on its own, and is ended as soon as that import returns in it
(containment.py). A child still inside the import when the command has answered — sleeping, serving,
looping — would otherwise outlive ttinspect as an orphan running the user's code with no bound (the issue's
case: it wrote a file 30 s after `ttinspect list` had exited 0). ttinspect imported the file to read its
kernels, not to run it as a program, so such children are asked to stop (SIGTERM), and ended (SIGKILL) if
they are still there a second later. Only children forked through os.fork while a file was imported, in the
CLI's own process, and never reaped: a pid is ours until we reap it, so no other process can be hit. A
program the file started with subprocess is not tracked (it is a program of its own, not the file's import).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from typing import Callable, Iterator

_forked: list[int] = []
GRACE_SECONDS = 1.0


@contextlib.contextmanager
def children_tracked(on: bool) -> Iterator[None]:
    """While a user's file imports (in the CLI's process, `on`): remember the children os.fork makes."""
    if not on or not hasattr(os, "fork"):
        yield
        return
    real_fork, me = os.fork, os.getpid()

    def tracked_fork() -> int:
        pid = real_fork()
        if pid > 0 and os.getpid() == me:
            _forked.append(pid)
        return pid

    os.fork = tracked_fork
    try:
        yield
    finally:
        if os.getpid() == me:
            os.fork = real_fork


def _alive(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # reaped already (by the file's own code)
        return False
    return done == 0


def end_left_children(say: Callable[[str], object]) -> None:
    """End the children a file forked at import that are still running; say so in one line."""
    running = [pid for pid in _forked if _alive(pid)]
    _forked.clear()
    if not running:
        return
    for pid in running:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    stubborn, deadline = running, time.monotonic() + GRACE_SECONDS
    while stubborn and time.monotonic() < deadline:
        time.sleep(0.02)
        stubborn = [pid for pid in stubborn if _alive(pid)]
    for pid in stubborn:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, 0)
    how = f"; {len(stubborn)} ignored SIGTERM and were killed" if stubborn else ""
    say(f"ended {len(running)} process(es) a kernel file forked at import and left running "
        f"(pid {', '.join(str(pid) for pid in running)}){how}")

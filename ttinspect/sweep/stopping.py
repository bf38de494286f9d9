"""Stopping a sweep's workers on Ctrl-C, SIGTERM or SIGHUP: the driver alone decides, and ends the whole
worker tree, so that nothing outlives it.

Why the driver alone: `kill -TERM -PGID` (or a closing terminal's SIGHUP) reaches every process of the
group at once. A worker that died of it would leave the driver reading half a result, and a forkserver that
died of it makes every worker look dead to the driver (`Popen.poll` reads 255 from its closed pipe), so the
live ones would be left behind; a resource tracker that died of SIGHUP is relaunched at exit by the
driver's semaphore clean-up and prints tracebacks. So the helpers are started with the stop signals
blocked (a blocked signal stays blocked across fork and exec, and neither helper unblocks SIGHUP), the
workers ignore them (`start_worker`), and the driver ends the workers with SIGKILL, their own
children (a compile's ptxas, which inherits the same blocked signals) with them.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any, Callable, Iterable

from ttinspect.errors import Terminated

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def ignore_stop_signals() -> None:
    """The driver stops the workers (no traceback from each, no half result)."""
    for number in STOP_SIGNALS:
        signal.signal(number, signal.SIG_IGN)


def start_worker(scratch: str) -> None:
    """A worker's initializer: the stop signals ignored, and temporary files (Triton's .ptx and ptxas logs,
    removed by Triton only when the compile returns) made in `scratch`, which the driver removes with the
    pool: a worker it had to SIGKILL mid-compile leaves nothing in the system's TMPDIR."""
    import tempfile

    ignore_stop_signals()
    os.environ["TMPDIR"] = tempfile.tempdir = scratch  # ptxas, a child, reads TMPDIR


def scratch_folder() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="ttinspect-workers-")


def remove_scratch(scratch: str | None) -> None:
    if scratch:
        import shutil

        shutil.rmtree(scratch, ignore_errors=True)


def start_helpers(context) -> None:
    """Start multiprocessing's resource tracker and (for a forkserver context) forkserver now, with the
    stop signals blocked, so that they inherit the block (see the module's docstring). One at a time:
    the tracker's own launch unblocks SIGINT and SIGTERM in this thread when it is done."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        return
    from multiprocessing import forkserver, resource_tracker

    starts: list[Callable[[], Any]] = [resource_tracker.ensure_running]
    if context.get_start_method() == "forkserver":
        starts.append(forkserver.ensure_running)
    for start in starts:
        before = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            start()
        finally:  # a stop signal that came meanwhile is delivered here, to our handler
            signal.pthread_sigmask(signal.SIG_SETMASK, before)


class signals_held:
    """Within the block, a stop signal is noted instead of handled; at the end it goes to the handler it
    was meant for (which raises KeyboardInterrupt or errors.Terminated). For what must not be cut in half:
    creating the pool and submitting to it, stopping the workers. Only Python handlers are held (SIG_DFL
    and SIG_IGN stay as they are), and only in the main thread, where handlers run."""

    def __init__(self) -> None:
        self.handlers: dict[int, Any] = {}
        self.pending: list[int] = []

    def __enter__(self) -> signals_held:
        if threading.current_thread() is threading.main_thread():
            for number in STOP_SIGNALS:
                handler = signal.getsignal(number)
                if callable(handler):
                    self.handlers[number] = handler
                    signal.signal(number, self._note)
        return self

    def _note(self, number: int, frame) -> None:
        self.pending.append(number)

    def __exit__(self, *exc) -> None:
        for number, handler in self.handlers.items():
            signal.signal(number, handler)
        for number in dict.fromkeys(self.pending):  # each signal once, in the order they came
            self.handlers[number](number, None)


class handlers_kept:
    """Our Python handlers of the stop signals, put back after a call that replaces them: `ray.init` sets
    its own SIGTERM handler (`sys.exit`), which would skip our stop (rows kept, tasks cancelled, the
    local Ray shut down by `ray.shutdown`) and exit 1. Where we had none (SIG_DFL), its handler stays."""

    def __enter__(self) -> handlers_kept:
        main = threading.current_thread() is threading.main_thread()
        self.handlers = {n: h for n in STOP_SIGNALS if main and callable(h := signal.getsignal(n))}
        return self

    def __exit__(self, *exc) -> None:
        for number, handler in self.handlers.items():
            if signal.getsignal(number) is not handler:
                signal.signal(number, handler)


class signal_remembered:
    """Ray's waits catch the exception our handler raises and raise a bare KeyboardInterrupt of their own:
    within the block the last SIGTERM/SIGHUP is noted on its way to our handler, and such a bare
    KeyboardInterrupt leaves the block as the errors.Terminated it was (exit 128 + the signal, not 130)."""

    def __enter__(self) -> signal_remembered:
        self.last: int | None = None
        self.handlers: dict[int, Any] = {}
        if threading.current_thread() is threading.main_thread():
            for number in STOP_SIGNALS:
                handler = signal.getsignal(number)
                if number != signal.SIGINT and callable(handler):
                    self.handlers[number] = handler
                    signal.signal(number, self._seen)
        return self

    def _seen(self, number: int, frame) -> None:
        self.last = number
        self.handlers[number](number, frame)

    def __exit__(self, kind, error, traceback) -> None:
        for number, handler in self.handlers.items():
            signal.signal(number, handler)
        if kind is KeyboardInterrupt and self.last is not None:
            raise Terminated(self.last) from error


def end_process_trees(pids: Iterable[int]) -> None:
    """SIGKILL these processes (our workers: they ignore the polite signals) and all their descendants.
    Each is stopped first (SIGSTOP) so that it starts no child while its tree is read from /proc."""
    roots = [pid for pid in dict.fromkeys(pids) if _ours(pid)]
    for pid in roots:
        _send(pid, signal.SIGSTOP)
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline and any(_state(pid) not in ("T", "t", "Z", "X", None) for pid in roots):
        time.sleep(0.005)  # stopped once it returns from the kernel (a fork in progress completes first)
    tree = roots + _descendants(roots)
    for pid in tree:
        _send(pid, signal.SIGKILL)


def _send(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except (ProcessLookupError, PermissionError):  # gone already
        pass


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command name: state, ppid, pgrp, ...; None without /proc or pid."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            text = file.read().decode(errors="replace")
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()


def _state(pid: int) -> str | None:
    fields = _stat(pid)
    return fields[0] if fields else None


def _ours(pid: int) -> bool:
    """A live process of our process group (where our workers are, also when the forkserver that forked
    them is gone): a pid reused by another program since is left alone. Without /proc: alive."""
    if not os.path.isdir("/proc"):
        try:
            os.kill(pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X") and int(fields[2]) == os.getpgrp()


def _descendants(roots: list[int]) -> list[int]:
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields and fields[0] not in ("Z", "X"):
                children.setdefault(int(fields[1]), []).append(int(entry))
    out: list[int] = []
    todo = list(roots)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in out and child not in roots:
                out.append(child)
                todo.append(child)
    return out

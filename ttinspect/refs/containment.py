"""Running a user's file at import without letting it take ttinspect down: its output kept off stdout, its
closing of the standard streams and its working-directory changes undone, os._exit()/os.abort() turned
into one line, a fork's child ended as the import returns in it, what it changes of the process put back
(process_hooks.py), the threads it leaves kept from the answer (leftover_threads.py), and ttinspect's own
dependencies imported before the file's folder can shadow them."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import threading
from typing import Iterable

from ttinspect.refs.leftover_children import children_tracked
from ttinspect.refs.leftover_threads import adopt, process_is_ours
from ttinspect.refs.process_hooks import ImportRecord, process_state_kept


class ProcessExit(BaseException):
    """os._exit() or os.abort() called by a user's file at import (raised instead of ending the process)."""


class _Shielded:
    """A stream the user's file may print to, flush and even close: closing it closes nothing (it is
    ttinspect's stderr, still needed for the error line and the warnings)."""

    def __init__(self, stream):
        self._stream = stream

    def close(self) -> None:
        pass

    @property
    def closed(self) -> bool:
        return False

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def contained(folders: Iterable[str] = (), record: ImportRecord | None = None):
    """While a user's file runs at import: what it prints goes to stderr (stdout is the stage text or the
    JSON) — Python's prints and a child process's output alike (descriptor 1 points at 2 meanwhile);
    closing sys.stdout/sys.stderr closes nothing; the working directory it changes is changed back (the
    paths the user gave are relative to it); and os._exit()/os.abort() raise instead of ending the
    process, so that the user hears which line did it — in this process only: a child the file forks
    exits for real, and quietly as soon as the import returns in it (it never runs ttinspect's code: the
    answer is printed once). Called in a thread the file started, os._exit() ends that thread alone.
    `folders`: the user's own code (their exit handlers are not run); `record`: what happened meanwhile."""
    saved = sys.stdout, sys.stderr, os._exit, os.abort
    real_exit, real_abort, me = os._exit, os.abort, os.getpid()
    importer, before = threading.current_thread(), set(threading.enumerate())
    shield = _Shielded(sys.stderr)
    cwd = _cwd()

    def no_exit(code=0):
        if os.getpid() != me:
            real_exit(code)
        if threading.current_thread() is not importer:  # a thread of the file's: it ends, quietly
            raise SystemExit(code)
        raise ProcessExit(f"os._exit({code})")

    def no_abort():
        if os.getpid() != me:
            real_abort()
        if threading.current_thread() is not importer:
            raise SystemExit(134)
        raise ProcessExit("os.abort()")

    real_kill, real_killpg, real_raise = os.kill, os.killpg, signal.raise_signal

    def no_fatal_signal_to_us(how: str, send, target: int, signum: int) -> None:
        if os.getpid() == me and target in _own_targets(how, me) and _ends_the_process(signum):
            if threading.current_thread() is not importer:
                raise SystemExit(128 + int(signum))
            whom = {"os.kill": "its own process, ", "os.killpg": "its own process group, "}.get(how, "")
            raise ProcessExit(f"{how}({whom}{signal.Signals(signum).name})")
        if how == "signal.raise_signal":
            send(signum)
        else:
            send(target, signum)

    try:
        sys.stdout.flush()
        saved_fd = os.dup(1)
        os.dup2(2, 1)
    except (OSError, ValueError, AttributeError):  # no descriptor 1 or 2 (embedded, closed): Python's level only
        saved_fd = None
    sys.stdout = sys.stderr = shield
    os._exit, os.abort = no_exit, no_abort
    os.kill = lambda pid, sig: no_fatal_signal_to_us("os.kill", real_kill, pid, sig)
    os.killpg = lambda group, sig: no_fatal_signal_to_us("os.killpg", real_killpg, group, sig)
    signal.raise_signal = lambda sig: no_fatal_signal_to_us("signal.raise_signal", real_raise, me, sig)
    try:
        with process_state_kept(folders, record if record is not None else ImportRecord()), \
                children_tracked(process_is_ours()):
            yield
    finally:
        if os.getpid() != me:  # the child of a fork at import: the import is over for it, and so is it
            real_exit(0)
        sys.stdout, sys.stderr, os._exit, os.abort = saved
        os.kill, os.killpg, signal.raise_signal = real_kill, real_killpg, real_raise
        if saved_fd is not None:
            os.dup2(saved_fd, 1)
            os.close(saved_fd)
        sys.stdout = adopt([t for t in threading.enumerate() if t not in before], sys.stdout)
        if cwd is not None and _cwd() != cwd:
            try:
                os.chdir(cwd)
            except OSError:
                pass


# Signals whose default action does not end a process: sending them to ourselves is harmless.
_HARMLESS = {0, signal.SIGCHLD, signal.SIGCONT, signal.SIGURG, signal.SIGWINCH}


def _own_targets(how: str, me: int) -> set[int]:
    """The pids (or process groups, for killpg) that name this process: itself, its group, 0 and -group."""
    group = os.getpgid(me)
    return {me} if how == "signal.raise_signal" else ({0, group} if how == "os.killpg" else {me, 0, -group})


def _ends_the_process(signum: int) -> bool:
    """A signal that would end ttinspect: not a harmless one, and not one the file gave a handler of its own
    (then it is the file's business, as its handler decides)."""
    if signum in _HARMLESS:
        return False
    try:
        handler = signal.getsignal(signum)
    except (ValueError, OSError):
        return True
    return handler in (signal.SIG_DFL, None) or getattr(handler, "__module__", "").startswith("ttinspect.")


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # the working directory was removed
        return None


def import_own_dependencies() -> None:
    """Import the packages ttinspect itself needs (its distribution's requirements) before a user's folder
    goes first on sys.path: a user's `rich.py` or `triton.py` would otherwise be taken for them by the
    imports ttinspect does later (submodules resolve inside the package already imported)."""
    import importlib
    from importlib import metadata

    try:
        requires = metadata.requires("ttinspect") or []
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        requires = []
    for requirement in requires:
        if "extra ==" in requirement:
            continue
        name = re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower().replace("-", "_")
        if name and name not in sys.modules:
            try:
                importlib.import_module(name)
            except Exception:  # a broken optional piece: the command that needs it says so later
                pass

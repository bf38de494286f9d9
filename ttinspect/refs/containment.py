"""Running a user's file at import without letting it take ttinspect down: its output kept off stdout, its
closing of the standard streams and its working-directory changes undone, os._exit()/os.abort() turned
into one line, a fork's child ended as the import returns in it, what it changes of the process put back
(process_hooks.py), the threads it leaves kept from the answer (leftover_threads.py), and ttinspect's own
dependencies imported before the file's folder can shadow them."""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from typing import Iterable

from ttinspect.refs.leftover_threads import adopt
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

    try:
        sys.stdout.flush()
        saved_fd = os.dup(1)
        os.dup2(2, 1)
    except (OSError, ValueError, AttributeError):  # no descriptor 1 or 2 (embedded, closed): Python's level only
        saved_fd = None
    sys.stdout = sys.stderr = shield
    os._exit, os.abort = no_exit, no_abort
    try:
        with process_state_kept(folders, record if record is not None else ImportRecord()):
            yield
    finally:
        if os.getpid() != me:  # the child of a fork at import: the import is over for it, and so is it
            real_exit(0)
        sys.stdout, sys.stderr, os._exit, os.abort = saved
        if saved_fd is not None:
            os.dup2(saved_fd, 1)
            os.close(saved_fd)
        sys.stdout = adopt([t for t in threading.enumerate() if t not in before], sys.stdout)
        if cwd is not None and _cwd() != cwd:
            try:
                os.chdir(cwd)
            except OSError:
                pass


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

"""Threads a user's file started at import and left running: in the CLI's process they never print into the
answer, never end the process, and never keep it alive once the answer is given.

- What any thread but the main one prints through Python goes to stderr (stdout holds the answer).
- os._exit() or os.abort() called in one of them ends that thread alone (SystemExit, which threads end on
  quietly); `sys.exit()` in a thread already does only that.
- At the end the command exits with its own code without waiting for them: stdout and stderr flushed, the
  exit handlers of ttinspect and of libraries run, then the process ends (os._exit) without the
  interpreter's teardown, which would wait for them (or, for a daemon thread still printing, may crash).
  Without threads left the exit is Python's usual one.

In a host process (the API) nothing here is done: the caller's threads are the caller's business.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
import weakref
from typing import Any, Iterable, NoReturn

from ttinspect.files.import_limit import use_watchdog

_owned = [False]  # the CLI's own process
_left: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
_real_exit, _real_abort = os._exit, os.abort


def own_process(on: bool = True) -> None:
    """Called by the CLI's main(): this process is ttinspect's, and the rules above hold in it — and an
    import that cannot be stopped from Python may end it (import_limit.py's watchdog)."""
    _owned[0] = on
    use_watchdog(on)


def process_is_ours() -> bool:
    return _owned[0]


class _MainThreadOnly:
    """stdout for the main thread; anything another thread writes goes to stderr."""

    def __init__(self, stream: Any):
        self._stream = stream

    def _target(self) -> Any:
        return self._stream if threading.current_thread() is threading.main_thread() else sys.__stderr__

    def write(self, text: str) -> int:
        return self._target().write(text)

    def writelines(self, lines: Iterable[str]) -> None:
        self._target().writelines(lines)

    def flush(self) -> None:
        self._target().flush()  # a closed pipe still reaches the CLI's exit, which says nothing of it

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def adopt(threads: Iterable[threading.Thread], stdout: Any) -> Any:
    """After an import that left `threads` running: they are kept from the answer (see the module's
    docstring). Returns what sys.stdout should be from now on, given what it was."""
    threads = [t for t in threads if t.is_alive()]
    if not threads or not _owned[0]:
        return stdout
    _left.update(threads)
    os._exit, os.abort = _thread_exit, _thread_abort
    return stdout if isinstance(stdout, _MainThreadOnly) else _MainThreadOnly(stdout)


def _thread_exit(status: int) -> NoReturn:
    if threading.current_thread() is not threading.main_thread():
        raise SystemExit(status)
    _real_exit(status)


def _thread_abort() -> NoReturn:
    if threading.current_thread() is not threading.main_thread():
        raise SystemExit(134)
    _real_abort()


def threads_left() -> bool:
    """A daemon thread counts too: one still printing as the interpreter shuts down can crash its teardown
    (`could not acquire lock for <stderr> at interpreter shutdown`)."""
    return any(t.is_alive() for t in list(_left))


def exit_without_waiting(code: object) -> None:
    """The CLI's last step when a user's thread would keep the process alive: the answer flushed, exit
    handlers run, the process ended with the command's code. Returns (and the usual exit follows) when no
    such thread is left or the code is not a number."""
    if not threads_left() or not (code is None or isinstance(code, int)):
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    with contextlib.suppress(Exception):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    _real_exit(code or 0)

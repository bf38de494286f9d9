"""A time limit on importing a user's file: a file that loops or sleeps at import is stopped and named in one
line (the file:line where it was), never a silent hang.

The limit is SIGALRM in the main thread (ITIMER_REAL, repeating every quarter second after it fires, so code
that swallows the first stop with a bare `except:` gets another). In the CLI a watchdog thread stands behind
it: code that never returns to Python (a C loop), that cancels the timer or takes SIGALRM for itself is ended
by the watchdog a grace period later — the same line, exit 2, the process ended on the spot. In a host
process (the API) there is no watchdog: ending the caller's process is not ours to do.

The limit: `--import-timeout SECONDS` (every command that imports a user's file), else the environment's
TTINSPECT_IMPORT_TIMEOUT, else 60 s; 0 means none.
"""

from __future__ import annotations

import math
import os
import signal
import sys
import threading
from typing import Any, Iterable

from ttinspect.errors import UsageError

DEFAULT_SECONDS = 60.0
ENV = "TTINSPECT_IMPORT_TIMEOUT"
_REPEAT_SECONDS = 0.25  # after the first stop, again every this often until the import's frames are left
_exit_now = os._exit  # the real one: the user's code may replace os._exit while it runs

_from_option: list[float | None] = [None]  # --import-timeout of the command running now
_watchdog: list[bool] = [False]  # the CLI owns the process: the watchdog may end it


class ImportTimedOut(BaseException):
    """Raised in the main thread when a user's file runs past the limit at import (a BaseException, so that
    the file's own `except Exception` does not swallow it)."""


def set_option(seconds: float | None) -> None:
    """--import-timeout as given to the command running now (None: not given)."""
    _from_option[0] = seconds


def use_watchdog(on: bool = True) -> None:
    """The CLI's process is ttinspect's own: an import that cannot be stopped from Python ends it."""
    _watchdog[0] = on


def parse_seconds(text: str, what: str) -> float:
    """A number of seconds, 0 (no limit) or more; anything else is one line naming `what`."""
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{what}: {text[:60]!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise UsageError(f"{what}: {text[:60]!r} must be 0 (no limit) or a positive number of seconds")
    return value


def limit() -> tuple[float, str]:
    """(seconds, where the number came from: the option, the environment or the default); 0: no limit."""
    if _from_option[0] is not None:
        return _from_option[0], "--import-timeout"
    text = os.environ.get(ENV, "").strip()
    if text:
        return parse_seconds(text, ENV), ENV
    return DEFAULT_SECONDS, "the default"


def timed_out_text(path: object, seconds: float, source: str, where: str) -> str:
    """The one line: what stopped, where the code was, and how to give it longer."""
    if source == "the default":
        return (f"importing {path} did not finish within {seconds:g} s, the default limit; stopped at {where} "
                f"(--import-timeout SECONDS or {ENV} sets another, 0 for none)")
    return f"importing {path} did not finish within {seconds:g} s ({source}); stopped at {where}"


class TimeLimit:
    """`with TimeLimit(path, folders):` — the import inside runs under the limit (main thread only: Python
    delivers signals nowhere else; elsewhere there is no limit)."""

    def __init__(self, path: object, folders: Iterable[str]):
        self.path, self.folders = path, [os.path.realpath(f) for f in folders]
        self.seconds, self.source = limit()
        self.armed = False
        self._done = threading.Event()
        self._previous: Any = None

    def __enter__(self) -> TimeLimit:
        if self.seconds <= 0 or threading.current_thread() is not threading.main_thread():
            return self
        self._previous = signal.signal(signal.SIGALRM, self._fire)
        self.armed = True
        signal.setitimer(signal.ITIMER_REAL, self.seconds, _REPEAT_SECONDS)
        if _watchdog[0]:
            main = threading.main_thread().ident
            threading.Thread(target=self._watch, args=(main,), name="ttinspect-import-watchdog", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.armed:
            return
        self.armed = False  # first: a stop pending now is dropped (_fire checks it)
        signal.setitimer(signal.ITIMER_REAL, 0)
        self._done.set()
        signal.signal(signal.SIGALRM, self._previous if self._previous is not None else signal.SIG_DFL)

    def _fire(self, signum: int, frame: object) -> None:
        if self.armed and getattr(frame, "f_code", None) is not _EXIT_CODE:
            raise ImportTimedOut(self.seconds)

    def _watch(self, main: int | None) -> None:
        grace = max(0.5, min(self.seconds, 5.0))
        if self._done.wait(self.seconds + grace):
            return
        frame = sys._current_frames().get(main) if main is not None else None
        line = timed_out_text(self.path, self.seconds, self.source, self._where(frame))
        try:
            os.write(2, f"ttinspect: error: {line}\n".encode(errors="replace"))
        finally:
            _exit_now(2)

    def _where(self, frame) -> str:
        """The innermost frame of the user's own code in the main thread's stack (else the innermost)."""
        innermost = frame
        while frame is not None:
            real = os.path.realpath(frame.f_code.co_filename)
            if any(real == f or real.startswith(f + os.sep) for f in self.folders):
                return f"{frame.f_code.co_filename}:{frame.f_lineno}"
            frame = frame.f_back
        return f"{innermost.f_code.co_filename}:{innermost.f_lineno}" if innermost is not None else str(self.path)


_EXIT_CODE = TimeLimit.__exit__.__code__  # a stop that lands as __exit__ starts is not raised inside it

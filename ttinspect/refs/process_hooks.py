"""What a user's file may change of the whole process while it is imported, put back when the import ends:
signal handlers and interval timers, the exception, unraisable, display and breakpoint hooks, trace and
profile functions, the recursion limit, builtins it rebinds (`print`, `open`), standard input, and the exit
handlers it registers — which ttinspect never runs (docs/reliability.md: the file is imported to read its
kernels, not run as a program; its exit actions could print after the answer, hang, or pick the exit code).

It also tells a Ctrl-C (or SIGTERM/SIGHUP) that really arrived from a KeyboardInterrupt the code raised itself:
the first stops the command as any interruption does; the second is the file's error, one line.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import os
import signal
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

# the timers whose expiry would end the process by default once their handler is put back
_TIMERS = tuple(getattr(signal, name) for name in ("ITIMER_VIRTUAL", "ITIMER_PROF") if hasattr(signal, name))
_INTERRUPTS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
_HOOKS = (("sys", "excepthook"), ("sys", "unraisablehook"), ("sys", "displayhook"), ("sys", "breakpointhook"),
          ("threading", "excepthook"))


@dataclass
class ImportRecord:
    """What happened while the file was imported: the interruptions that really arrived (by signal number)
    and the exit handlers it registered (not run)."""

    signals: list[int] = field(default_factory=list)
    exit_handlers_dropped: list[Callable[..., Any]] = field(default_factory=list)


@contextlib.contextmanager
def process_state_kept(folders: Iterable[str], record: ImportRecord):
    """Everything of the list above saved on entry and put back on exit (in the main thread; elsewhere what
    Python allows only there — signals — is left as it is)."""
    roots = [os.path.realpath(f) for f in folders]
    main = threading.current_thread() is threading.main_thread()
    handlers = _signal_handlers() if main else {}
    timers = {which: signal.getitimer(which) for which in _TIMERS} if main else {}
    hooks = {(module, name): getattr(sys.modules[module], name) for module, name in _HOOKS}
    trace, profile = sys.gettrace(), sys.getprofile()
    thread_trace = getattr(threading, "gettrace", lambda: None)()
    recursion = sys.getrecursionlimit()
    names = dict(vars(builtins))
    real_register = atexit.register

    def register(func, *args, **kwargs):
        """The file's own exit handlers are kept from running; those of a library it imports (torch's) run."""
        caller = os.path.realpath(sys._getframe(1).f_code.co_filename)
        if any(caller == root or caller.startswith(root + os.sep) for root in roots):
            record.exit_handlers_dropped.append(func)
            return func
        return real_register(func, *args, **kwargs)

    if main:
        _note_interruptions(handlers, record)
    atexit.register = register  # type: ignore[assignment]  # `atexit.register(...)` and `@atexit.register`
    try:
        with _stdin_empty():
            yield record
    finally:
        atexit.register = real_register
        for (module, name), hook in hooks.items():
            setattr(sys.modules[module], name, hook)
        sys.settrace(trace)
        sys.setprofile(profile)
        if hasattr(threading, "settrace"):
            threading.settrace(thread_trace)
        with contextlib.suppress(RecursionError, ValueError):
            sys.setrecursionlimit(recursion)
        for name, value in names.items():
            if vars(builtins).get(name) is not value:
                setattr(builtins, name, value)
        if main:
            for which, (delay, interval) in timers.items():
                signal.setitimer(which, delay, interval)
            for number, handler in handlers.items():
                with contextlib.suppress(OSError, ValueError, TypeError):
                    if signal.getsignal(number) is not handler:
                        signal.signal(number, handler)


def _signal_handlers() -> dict[int, Any]:
    """Every signal's handler that Python can put back (None: one installed outside Python, left alone)."""
    found: dict[int, Any] = {}
    for number in signal.valid_signals():
        try:
            handler = signal.getsignal(number)
        except (OSError, ValueError):
            continue
        if handler is not None:
            found[number] = handler
    return found


def _note_interruptions(handlers: dict[int, Any], record: ImportRecord) -> None:
    """Ctrl-C, SIGTERM and SIGHUP handled by Python are noted as they arrive, then handled as before."""
    for number in _INTERRUPTS:
        previous = handlers.get(number)
        if not callable(previous):
            continue

        def noting(signum, frame, previous=previous):
            record.signals.append(signum)
            return previous(signum, frame)

        with contextlib.suppress(OSError, ValueError):
            signal.signal(number, noting)


@contextlib.contextmanager
def _stdin_empty():
    """Standard input reads as empty meanwhile (Python's and a child process's): `input()` at import is an
    EOFError named in one line, never a command waiting on the terminal."""
    saved_stream = sys.stdin
    try:
        saved_fd = os.dup(0)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
    except OSError:  # no descriptor 0 (closed at start): Python's level only
        saved_fd = None
    sys.stdin = open(os.devnull, encoding="utf-8")
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            sys.stdin.close()
        sys.stdin = saved_stream
        if saved_fd is not None:
            os.dup2(saved_fd, 0)
            os.close(saved_fd)

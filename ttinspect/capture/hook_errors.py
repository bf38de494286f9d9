"""A failure inside a capture hook is the capture's problem, never the program's: it becomes one warning line
on stderr (the first few distinct ones) and the record it was making is skipped; the program goes on."""

from __future__ import annotations

import sys
from typing import Any, Callable

MAX_WARNINGS = 5
_said: list[str] = []


def guarded(function: Callable[..., Any], *args: Any) -> Any:
    """function(*args), or None when it raised (after the warning)."""
    try:
        return function(*args)
    except Exception as error:  # never into the user's program
        warn(error)
        return None


def warn(error: BaseException) -> None:
    message = f"{type(error).__name__}: {error}"
    if message in _said or len(_said) >= MAX_WARNINGS:
        return
    _said.append(message)
    try:
        print(f"ttinspect: warning: capture skipped a record ({message}); the program goes on",
              file=sys.stderr, flush=True)
    except Exception:  # a closed stderr: nothing more to say
        pass


def reset() -> None:
    _said.clear()

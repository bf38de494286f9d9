"""A config that did not compile, kept as a row among those that did (`--config all`, a sweep)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Failed:
    """One of several configs that did not compile (`keep_going`): the others are still shown."""

    label: str
    note: str
    error: str
    exit_code: int = 1  # the error's (errors.EXIT_*), for the exit code of a table whose every row failed

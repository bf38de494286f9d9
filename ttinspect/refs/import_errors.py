"""What an error raised while a user's code was imported says, and where it arose: the innermost frame in the
user's own folders or package (where a package's own import raised, not the kernel file's import line that
led there), its message on one bounded line."""

from __future__ import annotations

import os
import traceback
from typing import Iterable


def where(error: BaseException, folders: Iterable[str]) -> str:
    """file:line of the innermost frame in the user's own code (their folder or their package); else of where
    it was raised."""
    frames = traceback.extract_tb(error.__traceback__)
    roots = [os.path.realpath(f) for f in folders]

    def own(frame) -> bool:
        real = os.path.realpath(frame.filename)
        return any(real == root or real.startswith(root + os.sep) for root in roots)

    mine = [f for f in frames if own(f)]
    chosen = mine or [f for f in frames if not f.filename.startswith("<frozen")] or frames
    if not chosen:
        return next(iter(roots), "?")
    return f"{chosen[-1].filename}:{chosen[-1].lineno}"


def said(error: BaseException, most: int = 500) -> str:
    """What the error says, on one line and bounded (a library's message may span pages; its str() may
    itself raise)."""
    try:
        text = " ".join(str(error).split())
    except Exception:
        return "(its message cannot be shown)"
    return text if len(text) <= most else text[:most] + "…"


def first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__

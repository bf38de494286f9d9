"""Python warnings a user's file raises while it is imported, shown with their control characters quoted.

`warnings.warn("\x1b]0;title\x07")` at a kernel file's import would otherwise reach the terminal as it is
(an escape sequence obeyed: a window title, a cleared screen, the clipboard), beside ttinspect's own lines.
While the file imports, Python's `warnings.showwarning` is one that writes the same text, its control
characters quoted (files/terminal_text.py); what the warning filters decide is unchanged.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from typing import Any, Iterator

from ttinspect.files.terminal_text import shown_block


def _show_quoted(message: Any, category: type[Warning], filename: str, lineno: int, file: Any = None,
                 line: str | None = None) -> None:
    stream = file if file is not None else sys.stderr
    if stream is None:  # no stderr (pythonw, a closed stream): Python drops the warning too
        return
    try:
        stream.write(shown_block(warnings.formatwarning(message, category, filename, lineno, line)))
    except (OSError, ValueError):  # a stream closed or gone: a warning is never worth a failure
        pass


@contextlib.contextmanager
def warnings_quoted() -> Iterator[None]:
    """While it is held, every warning shown goes through `_show_quoted`; the previous function after."""
    previous = warnings.showwarning
    warnings.showwarning = _show_quoted
    try:
        yield
    finally:
        warnings.showwarning = previous

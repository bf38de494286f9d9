"""Where output goes and how it looks: one answer for every command about width and colour.

Width: `--width N`; else the terminal's when stdout is one; else `COLUMNS` when set; else 80 — the
convention click and rich follow, so `ttinspect report opt | less` is as wide as a terminal would be,
not a fixed 160. Code (a stage dump, a diff of two loops) is never wrapped: only tables use the width.

Colour: `--color always|never` (or TTINSPECT_COLOR) decides; otherwise none when NO_COLOR is set to
anything non-empty (no-color.org: no bold, dim or italic either), forced by FORCE_COLOR, none on a
"dumb" TERM, else only on a terminal. An explicit flag wins over NO_COLOR, as no-color.org asks.

Imports nothing heavy: rich is imported by `console()` only, when a table is really printed.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any

COLOR_ENV = "TTINSPECT_COLOR"
COLOR_MODES = ("auto", "always", "never")
DEFAULT_WIDTH = 80
MIN_WIDTH = 40  # narrower than this, no table layout is readable; --width refuses it

# What the command line chose; None = decide from the environment (the API and tests leave them unset).
_chosen: dict[str, Any] = {"width": None, "color": None}


def configure(*, width: int | None = None, color: str | None = None) -> None:
    """The CLI's --width / --color. Only the values given are changed."""
    if width is not None:
        _chosen["width"] = width
    if color is not None:
        _chosen["color"] = color


def reset() -> None:
    """Forget the command line's choices (one process may run several commands: tests, CliRunner)."""
    _chosen.update(width=None, color=None)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # no isatty, or a closed stream
        return False


def width(stream: IO[str] | None = None) -> int:
    if _chosen["width"]:
        return int(_chosen["width"])
    stream = stream if stream is not None else sys.stdout
    if _isatty(stream):
        try:
            return max(MIN_WIDTH, os.get_terminal_size(stream.fileno()).columns)
        except (OSError, ValueError, AttributeError):
            pass
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return max(MIN_WIDTH, int(columns))
    return DEFAULT_WIDTH


def color_mode() -> str:
    mode = _chosen["color"] or os.environ.get(COLOR_ENV, "").strip().lower()
    return mode if mode in COLOR_MODES else "auto"


def color(stream: IO[str] | None = None) -> bool:
    mode = color_mode()
    if mode != "auto":
        return mode == "always"
    if os.environ.get("NO_COLOR", ""):
        return False
    if os.environ.get("FORCE_COLOR", ""):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    return _isatty(stream if stream is not None else sys.stdout)


def console(*, stderr: bool = False):
    """A rich Console that obeys the two answers above — rich's own environment reading (COLUMNS over
    the terminal, FORCE_COLOR, NO_COLOR still emitting bold) is overridden, so every table agrees. What it
    prints of data has its control characters quoted (render/quoted.py)."""
    from rich.console import Console

    from ttinspect.render.quoted import QuoteControls  # imports rich: only when a table is printed

    stream = sys.stderr if stderr else sys.stdout
    colored = color(stream)
    out = Console(file=stream, width=width(stream), highlight=False, soft_wrap=False,
                  force_terminal=colored, no_color=not colored, color_system="auto" if colored else None,
                  emoji=False, legacy_windows=False)
    out.push_render_hook(QuoteControls())  # a control character in data never reaches the terminal
    return out


def settings_key() -> dict[str, Any]:
    """What shapes rendered text, for caches of rendered output (render/kept.py)."""
    return {"width": width(), "color": color()}

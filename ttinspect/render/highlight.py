"""Color for stage text on a terminal: which lexer reads which stage, whether to color, and the coloring.

pygments is imported inside the functions, never here: the CLI's plain path (a pipe, a file, NO_COLOR)
must not pay for it. `should_color` and `highlight(..., color=False)` import nothing at all.
"""

from __future__ import annotations

import os
from typing import Any

from ttinspect.dialects.stages import DIALECT_STAGES, dialect_of
from ttinspect.errors import UsageError
from ttinspect.files.terminal_text import shown_block
from ttinspect.render import term

COLOR_ENV, COLOR_MODES = term.COLOR_ENV, term.COLOR_MODES


def lexer_for(stage: str) -> Any:
    """A pygments lexer instance for a text stage ("ttir", "ttgir", "llir", "ptx", "sass").

    The lexer keeps the text as it is (no stripping of leading/trailing newlines, none added), so that
    the values of its tokens concatenate back to the input."""
    dialect = dialect_of(stage)  # its lexer names the class in .lexers (MLIR for TTIR and TTGIR, ...)
    if dialect is None:
        raise UsageError(f"no syntax highlighting for stage {stage!r}; valid: {', '.join(DIALECT_STAGES)}")
    from ttinspect.render import lexers  # imports pygments: only when coloring

    return getattr(lexers, dialect.lexer)(stripnl=False, ensurenl=False)


def should_color(stream: Any, *, mode: str | None = None) -> bool:
    """Whether to write ANSI colors to `stream`: `mode` ("auto", "always", "never") when given, else the
    one rule every command follows (render/term.py: --color, TTINSPECT_COLOR, NO_COLOR, FORCE_COLOR, TTY)."""
    if mode is not None and mode not in COLOR_MODES:
        raise UsageError(f"unknown color mode {mode!r}; valid: {', '.join(COLOR_MODES)}")
    if mode in ("always", "never"):
        return mode == "always"
    return term.color(stream)


def _dark_background() -> bool:
    """Guess the terminal background from COLORFGBG ("15;0": white on black), as rxvt, Konsole and
    iTerm2 set it; dark when unknown, as most terminals are. It decides which of each pair of ANSI
    colors to use: the de-emphasized gray must stay dim on either background."""
    fgbg = os.environ.get("COLORFGBG", "")
    background = fgbg.rsplit(";", 1)[-1]
    return background not in ("7", "15")


def _colorscheme() -> dict:
    from pygments.formatters.terminal import TERMINAL_COLORS
    from pygments.token import Error, Name, Whitespace

    scheme = dict(TERMINAL_COLORS)
    # Whitespace shows no color; coloring it only adds escape codes (SASS is mostly indentation).
    scheme[Whitespace] = ("", "")
    # Token types our lexers use that pygments' 16-color table leaves uncolored or colors like others.
    scheme[Name.Label] = ("green", "brightgreen")  # ^bb0, .L_x_12: targets, like function names
    scheme[Name.Constant] = ("yellow", "brightyellow")  # #blocked1, c[0x0][0x210]: not red like %12 and R12
    # A lexer miss (new syntax in a newer Triton or CUDA) prints as plain text, not underlined red:
    # it is our shortcoming, not an error in the user's kernel.
    scheme[Error] = ("", "")
    return scheme


def highlight(text: str, stage: str, *, color: bool) -> str:
    """`text` unchanged when `color` is False; otherwise the same text with ANSI color codes (16
    colors, so that the terminal's own palette and theme apply). Stripped of its escape codes, the
    result is `text` exactly: no newline added or removed. A control character in the text (a file's name
    or a Python line quoted in it) is written as its escape either way (files/terminal_text.py)."""
    text = shown_block(text)
    if not color:
        return text
    lexer = lexer_for(stage)
    from pygments import format as pygments_format
    from pygments.formatters import TerminalFormatter

    formatter = TerminalFormatter(bg="dark" if _dark_background() else "light", colorscheme=_colorscheme())
    # get_tokens_unprocessed, not get_tokens: the latter normalizes the text first (\r\n, a final
    # newline), and the output must be the input plus colors.
    tokens = ((ttype, value) for _, ttype, value in lexer.get_tokens_unprocessed(text))
    return pygments_format(_merged(tokens), formatter)


def _merged(tokens):
    """Adjacent tokens of one type as one (`loc(`, `#loc3`, `)`): one escape sequence, not three."""
    from itertools import groupby

    for ttype, group in groupby(tokens, key=lambda token: token[0]):
        yield ttype, "".join(value for _, value in group)

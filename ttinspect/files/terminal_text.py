"""Text from elsewhere (a kernel's or an example's name, a capture's strings, an import error's message, a file
name) shown on a terminal: its control characters are quoted, never sent.

A terminal obeys what it is sent: ESC sequences clear the screen, set the window title or write the clipboard
(OSC 52), a carriage return overwrites what the line said, and bidirectional controls (U+202A–U+202E,
U+2066–U+2069) show text in another order than it is read. So, as git's quotePath and `ls -b` do, every
such character in DATA is written as an escape (`\\x1b`, `\\r`, `\\u202e`) before it is printed. Tab stays
(it only moves the cursor right), and so does the newline of a multi-line block where it is structure. What
ttinspect styles itself (rich's colours, the highlighter's) is added after the data is quoted, so it is kept.

Also here: the standard streams tolerate an encoding that cannot write every character (PYTHONIOENCODING=ascii,
a C locale, a surrogate-escaped file name): what cannot be written is written as its escape, never a crash.
"""

from __future__ import annotations

import re
import sys

# C0 controls but tab (and newline in a block), DEL, C1 controls, and the bidirectional embeddings,
# overrides and isolates.
_OTHERS = "\\x7f-\\x9f\\u202a-\\u202e\\u2066-\\u2069"
_IN_A_LINE = re.compile(f"[\\x00-\\x08\\x0a-\\x1f{_OTHERS}]")
_IN_A_BLOCK = re.compile(f"[\\x00-\\x08\\x0b-\\x1f{_OTHERS}]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def shown(text: object) -> str:
    """`text` as one line safe to print: every control character (a newline too) written as its escape."""
    text = str(text)
    return _IN_A_LINE.sub(_escape, text) if _IN_A_LINE.search(text) else text


def shown_block(text: object) -> str:
    """`text` of several lines safe to print: as `shown`, but its newlines kept as line breaks."""
    text = str(text)
    return _IN_A_BLOCK.sub(_escape, text) if _IN_A_BLOCK.search(text) else text


def has_controls(text: str) -> bool:
    """Whether `text` holds a character `shown` would quote (newline included)."""
    return _IN_A_LINE.search(text) is not None


def tolerate_any_encoding() -> None:
    """Let stdout and stderr write what their encoding cannot hold as escapes (`\\xe9`, `\\u2192`, `\\udcff`)
    instead of raising UnicodeEncodeError mid-output: an ASCII terminal or PYTHONIOENCODING=ascii gets every
    line, readable; a UTF-8 one is unchanged (only a lone surrogate from a non-UTF-8 file name is escaped)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None or getattr(stream, "errors", "strict") != "strict":
            continue
        try:
            reconfigure(errors="backslashreplace")
        except (ValueError, OSError):  # a closed or detached stream: nothing will be written to it anyway
            pass

"""Values from elsewhere (a capture's names and strings, a sweep's configs) put into Python that ttinspect
writes (`repro`'s script, `sweep --autotune-configs`): as data, never as code.

Whoever runs the written script runs only what its template says. So every value goes in as a literal
(`literal`: `repr()` of JSON's kinds, nothing else), a name used as a keyword or a variable must be an
identifier (`identifier`: else one line refusing it), a dtype is written as `tl.X` only when X is a plain
lowercase name (`dtype_attribute`), and text quoted in a docstring or a comment is escaped so that it can
neither close the docstring nor end the comment's line (`in_docstring`, `in_comment`).
"""

from __future__ import annotations

import keyword
import math
import re
from typing import Any

from ttinspect.errors import UsageError

# Triton's dtype names as `triton.language` spells them: float16, bfloat16, float8e4nv, int1, uint64, ...
_DTYPE_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


def is_identifier(name: object) -> bool:
    """A name Python accepts as a keyword argument or a variable (not a keyword such as `class`)."""
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)


def identifier(name: object, what: str, where: str) -> str:
    """`name` if it can be written as a Python name; else UsageError naming it and where it came from."""
    if not is_identifier(name):
        raise UsageError(f"{where}: {what} {name!r} is not a Python identifier; the script cannot name it")
    assert isinstance(name, str)  # for the type checker: is_identifier said so
    return name


def dtype_attribute(value: object) -> str | None:
    """`tl.float16` for the captured dtype constexpr "tl.float16" (or the name "float16"); None for anything
    else, which is then written as the string it is."""
    if not isinstance(value, str):
        return None
    name = value[3:] if value.startswith("tl.") else value
    return f"tl.{name}" if _DTYPE_NAME.match(name) and not keyword.iskeyword(name) else None


def literal(value: Any) -> str:
    """A JSON value (None, bool, int, float, str, list, tuple, dict with string keys) as Python source that
    evaluates to it; a non-finite float as `float('nan')`. Anything else is refused: a capture or a config
    holds only JSON's kinds, and `repr()` of another object could be any text."""
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"float({str(value)!r})"
    if isinstance(value, list):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    if isinstance(value, tuple):
        return "(" + "".join(f"{literal(item)}, " for item in value).rstrip(" ") + ")"
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise UsageError(f"a dictionary with a key that is not a string cannot be written in the script: "
                             f"{list(value)[:5]!r}")
        return "{" + ", ".join(f"{key!r}: {literal(item)}" for key, item in value.items()) + "}"
    raise UsageError(f"a {type(value).__name__} cannot be written in the script (only JSON values are)")


def in_docstring(text: object) -> str:
    """`text` escaped for a non-raw `\"\"\"...\"\"\"` string, which then holds it exactly: backslashes and
    quotes escaped (no `\"\"\"` can close it), control characters as escapes, on one line."""
    escaped = repr(str(text))[1:-1]  # backslashes, controls and the quote repr chose are escaped
    return escaped.replace('"', '\\"') if repr(str(text))[0] == "'" else escaped


def in_comment(text: object) -> str:
    """`text` for the rest of a `#` comment's line: control characters (a newline among them) escaped."""
    return repr(str(text))[1:-1]

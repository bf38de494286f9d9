"""What every field of every record of a capture (format 1) may hold, checked before the reader uses it.

A capture may come from someone else: every value in it is data, and one that is not what docs/capture.md
says is one `CaptureError` naming the capture's file:line and the field (`'configs[0]' of the autotune
record is 5; expected an object`), never an exception of ours later. Beyond types, the checks bound what
the rest of ttinspect would otherwise trust: names are identifiers (they are written into a reference and
into `repro`'s script), paths are absolute and normalized (no `..`: a captured source is written under
ttinspect's store by its relative path), digests are sha256 hex, texts that appear in one-line messages
hold no control characters, and every string, list and nesting is bounded. Fields this module does not
name (a later ttinspect's, within format 1) are accepted as any JSON value within the same bounds.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Callable

MAX_DEPTH = 16  # nesting of any value (a constexpr tuple of tuples is 2 or 3 deep)
MAX_ITEMS = 100_000  # entries of any one list or object
MAX_NAME = 1_000  # a name, a digest, a short text
MAX_TEXT = 64 * 1024  # a site, a signature, a path, an argument of the command line
MAX_SOURCE_TEXT = 8 * 1024 * 1024  # a captured file's text (the recorder keeps files up to 2 MB)
MAX_INT = 1 << 63

Field = tuple[Any, ...]  # the path to a value: ("configs", 0, "kwargs"), written out only for a message
Check = Callable[[Any, Field], None]


class Mismatch(Exception):
    """A value that is not what its field holds: (the field's path, the value, what was expected); `key`:
    the value is a key of the object at `field`."""

    def __init__(self, field: Field, value: Any, expected: str, key: bool = False):
        super().__init__(field)
        self.field, self.value, self.expected, self.key = field, value, expected, key


def shown(value: Any) -> str:
    """A value as one short line for a message, whatever its size or depth."""
    if isinstance(value, dict):
        return f"an object of {len(value)} key(s)"
    if isinstance(value, list):
        return f"a list of {len(value)} item(s)"
    text = "null" if value is None else "true" if value is True else "false" if value is False else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def field_text(field: Field) -> str:
    """A field's path as a message says it: `options.num_warps`, `sources['/x y.py']`, `args[0]`."""
    out = ""
    for key in field:
        if isinstance(key, int):
            out += f"[{key}]"
        elif _IDENTIFIER.match(str(key)) and len(str(key)) <= 60:
            out += f".{key}" if out else str(key)
        else:
            out += f"[{shown(str(key))}]"
    return out


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DIGEST = re.compile(r"[0-9a-f]{64}\Z")


def text(limit: int = MAX_TEXT, *, lines: bool = False) -> Check:
    """A string of at most `limit` characters; without control characters unless `lines`."""
    def check(value: Any, field: Field) -> None:
        if not isinstance(value, str):
            raise Mismatch(field, value, "a string")
        if len(value) > limit:
            raise Mismatch(field, value, f"a string of at most {limit:,} characters (it has {len(value):,})")
        if not lines and _CONTROL.search(value):
            raise Mismatch(field, value, "a string without control characters")
    return check


def _pattern(regex: re.Pattern[str], expected: str) -> Check:
    def check(value: Any, field: Field) -> None:
        if not isinstance(value, str) or len(value) > MAX_NAME or not regex.match(value):
            raise Mismatch(field, value, expected)
    return check


def identifier(value: Any, field: Field) -> None:
    """A Python identifier (a kernel's, a parameter's: unicode ones too), never a keyword's place in code."""
    if not isinstance(value, str) or not value.isidentifier() or len(value) > MAX_NAME:
        raise Mismatch(field, value, "a Python identifier")


IDENTIFIER = identifier
DIGEST = _pattern(_DIGEST, "a sha256 digest (64 lowercase hex digits)")
NAME = text(MAX_NAME)
TEXT = text()
_ANY_TEXT = text(lines=True)


def path(value: Any, field: Field) -> None:
    """An absolute, normalized path (no `.` or `..` part): what the recorder writes (os.path.abspath)."""
    TEXT(value, field)
    if not value.startswith("/") or posixpath.normpath(value) != value:
        raise Mismatch(field, value, "an absolute path without '.' or '..' parts")


def integer(low: int = -MAX_INT, high: int = MAX_INT) -> Check:
    def check(value: Any, field: Field) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise Mismatch(field, value, f"an integer from {low:,} to {high:,}")
    return check


COUNT = integer(0)


def boolean(value: Any, field: Field) -> None:
    if not isinstance(value, bool):
        raise Mismatch(field, value, "true or false")


def number(value: Any, field: Field) -> None:
    """An int within bounds or any float (inf: a config the autotuner could not run; NaN, as JSON reads it)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or type(value) is int and abs(value) > MAX_INT:
        raise Mismatch(field, value, "a number")


def nullable(check: Check) -> Check:
    def checked(value: Any, field: Field) -> None:
        if value is not None:
            check(value, field)
    return checked


def either(*checks: Check, expected: str) -> Check:
    def check(value: Any, field: Field) -> None:
        for one in checks:
            try:
                one(value, field)
                return
            except Mismatch:
                continue
        raise Mismatch(field, value, expected)
    return check


def list_of(item: Check, limit: int = MAX_ITEMS) -> Check:
    def check(value: Any, field: Field) -> None:
        if not isinstance(value, list):
            raise Mismatch(field, value, "a list")
        if len(value) > limit:
            raise Mismatch(field, value, f"a list of at most {limit:,} items")
        for index, entry in enumerate(value):
            item(entry, (*field, index))
    return check


def mapping(key: Check, value: Check, limit: int = MAX_ITEMS) -> Check:
    def check(found: Any, field: Field) -> None:
        if not isinstance(found, dict):
            raise Mismatch(field, found, "an object")
        if len(found) > limit:
            raise Mismatch(field, found, f"an object of at most {limit:,} keys")
        for name, entry in found.items():
            try:
                key(name, field)
            except Mismatch as bad:
                raise Mismatch(field, name, bad.expected, key=True) from None
            value(entry, (*field, name))
    return check


def json_value(value: Any, field: Field) -> None:
    """Any JSON value, within the bounds: depth, items, string length. Walked without recursion; an entry's
    path is made only for a container or a value that fails."""
    stack: list[tuple[Any, Field, int]] = [(value, field, 0)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, str):
            if len(item) > MAX_TEXT:
                _ANY_TEXT(item, where)
        elif isinstance(item, (list, dict)):
            if depth >= MAX_DEPTH:
                raise Mismatch(where, item, f"a value nested at most {MAX_DEPTH} deep")
            if len(item) > MAX_ITEMS:
                raise Mismatch(where, item, f"at most {MAX_ITEMS:,} items")
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            stack += [(entry, (*where, name), depth + 1) for name, entry in pairs]
        elif type(item) is int and abs(item) > MAX_INT:
            raise Mismatch(where, item, "a number")


def fields(named: dict[str, tuple[Check, bool]]) -> Check:
    """An object with these fields (check, required); any other key holds any bounded JSON value."""
    def check(value: Any, field: Field) -> None:
        if not isinstance(value, dict):
            raise Mismatch(field, value, "an object")
        for name, (one, required) in named.items():
            if name in value:
                one(value[name], (*field, name))
            elif required:
                raise Mismatch((*field, name), None, _MISSING)
        for name, entry in value.items():
            if name not in named:
                json_value(entry, (*field, name))
    return check


_MISSING = "present (it is missing)"


def _optional(check: Check) -> tuple[Check, bool]:
    return check, False


def _required(check: Check) -> tuple[Check, bool]:
    return check, True


ARCH = either(integer(0), NAME, expected="an integer or a name")
DEVICE = fields({"name": _optional(nullable(NAME)), "backend": _optional(nullable(NAME)),
                 "arch": _optional(nullable(ARCH)), "warp_size": _optional(nullable(integer(1, 1024)))})
TARGET = fields({"backend": _optional(nullable(NAME)), "arch": _optional(nullable(ARCH)),
                 "warp_size": _optional(nullable(integer(1, 1024)))})
GRID = list_of(integer(0, 1 << 32), 3)


def grid3(value: Any, field: Field) -> None:
    """A grid as the recorder writes an evaluated one: exactly three sizes (x, y, z)."""
    if not isinstance(value, list) or len(value) != 3:
        raise Mismatch(field, value, "a grid of 3 integers [x, y, z]")
    GRID(value, field)


DIMENSIONS = list_of(integer(-MAX_INT, MAX_INT), 64)
TENSOR = fields({"dtype": _required(NAME), "shape": _required(DIMENSIONS), "strides": _required(nullable(DIMENSIONS))})


def argument(value: Any, field: Field) -> None:
    """One argument's summary (launches.py `describe`): a scalar, a tensor's dtype/shape/strides, a
    descriptor, or the type name of what could not be described."""
    if isinstance(value, dict) and ("shape" in value or "strides" in value or "dtype" in value):
        TENSOR(value, field)
    else:
        json_value(value, field)


CONFIG = fields({"kwargs": _optional(nullable(mapping(IDENTIFIER, json_value))),
                 **{option: _optional(nullable(integer(0, 1 << 20)))
                    for option in ("num_warps", "num_stages", "num_ctas", "maxnreg")}})
MAX_LOST = 1_000  # the end record's `lost`: what the run lost, one description each

RECORDS: dict[str, Check] = {
    "header": fields({
        "format": _required(integer(0)), "tool": _optional(nullable(NAME)),
        **{key: _optional(nullable(NAME)) for key in ("tool_version", "created", "python", "triton", "torch")},
        "cwd": _optional(nullable(TEXT)), "argv": _optional(list_of(text(lines=True), 10_000)),
        "interpreter": _optional(boolean), "device": _optional(nullable(DEVICE)), "processes": _optional(COUNT),
        "as_target": _optional(nullable(NAME)), "kernels_run": _optional(boolean),
        "triton_root": _optional(nullable(path))}),
    "source": fields({"sha256": _required(DIGEST), "path": _required(path),
                      "text": _optional(nullable(text(MAX_SOURCE_TEXT, lines=True)))}),
    "compile": fields({
        "id": _required(NAME), "name": _required(IDENTIFIER), "qualname": _optional(nullable(NAME)),
        "module": _optional(nullable(NAME)), "file": _optional(nullable(path)),
        "def_line": _optional(nullable(integer(0, 1 << 31))), "sha256": _optional(nullable(DIGEST)),
        "sources": _optional(mapping(path, DIGEST, 10_000)), "inductor": _optional(boolean),
        "params": _required(list_of(IDENTIFIER, 10_000)), "signature": _required(TEXT),
        "constexprs": _optional(mapping(IDENTIFIER, json_value)),
        "options": _optional(mapping(IDENTIFIER, json_value)), "target": _optional(nullable(TARGET)),
        "triton_cache_key": _optional(nullable(NAME)), "triton_cache_dir": _optional(nullable(path)),
        "autotuned": _optional(nullable(mapping(NAME, json_value)))}),
    "launches": fields({
        "compile": _required(NAME), "site": _required(TEXT), "count": _required(COUNT),
        "grids": _optional(list_of(GRID, 64)), "args": _optional(list_of(mapping(IDENTIFIER, argument), 64)),
        "pairs": _optional(list_of(list_of(integer(0, 63), 2), 64 * 64))}),
    "autotune": fields({
        "name": _required(NAME), "file": _optional(nullable(path)), "key": _optional(mapping(NAME, json_value)),
        "configs": _required(list_of(CONFIG, 10_000)), "timings_ms": _optional(nullable(list_of(nullable(number)))),
        "best": _optional(nullable(COUNT)), "pruned_to": _optional(nullable(list_of(COUNT))),
        "compiles": _optional(list_of(NAME)), "grids": _optional(nullable(list_of(nullable(grid3), 10_000)))}),
    "heuristics": fields({"name": _required(NAME), "values": _required(mapping(IDENTIFIER, json_value)),
                          "compile": _optional(nullable(NAME))}),
    "device": fields({"device": _optional(nullable(DEVICE))}),
    "end": fields({"compiles": _optional(COUNT), "launches": _optional(COUNT),
                   "exit_code": _optional(nullable(integer())),
                   "lost": _optional(list_of(text(MAX_NAME), MAX_LOST))}),
}


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:]')


def deep_field(line: str) -> str | None:
    """The top-level field of a JSON record line under which it nests deepest: named for a line too deep for
    the JSON reader itself (a value thousands deep), found by a scan of its tokens only then."""
    depth, last, key, deepest, worst = 0, None, None, 0, None
    for token in _TOKENS.finditer(line):
        text = token.group()
        if text in "[{":
            depth += 1
            if depth > deepest:
                deepest, worst = depth, key
        elif text in "]}":
            depth -= 1
        elif text == ":" and depth == 1:
            key = last
        elif text.startswith('"'):
            last = text[1:-1]
    return worst


_SURROGATE = re.compile("[\ud800-\udfff]")


def not_text(record: Any) -> tuple[Field, str, bool] | None:
    """The first string of a record, key or value, that is not Unicode text — a lone surrogate, which JSON's
    `\\ud800` escape makes and no UTF-8 file can hold (surrogate-escaped bytes, `\\udcff`, alike): (its
    field, the string, whether it is a key), else None. ttinspect never writes one: its recorder encodes
    strictly as UTF-8; anything downstream that writes the string (a terminal, a page) would fail on it."""
    stack: list[tuple[Any, Field]] = [(record, ())]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return where, item, False
        elif isinstance(item, dict):
            for name, entry in item.items():
                if _SURROGATE.search(name):
                    return where, name, True
                stack.append((entry, (*where, name)))
        elif isinstance(item, list):
            stack += [(entry, (*where, index)) for index, entry in enumerate(item)]
    return None


def check_record(record: dict[str, Any], kind: str) -> str | None:
    """None when the record of type `kind` holds what format 1 says; else the one line saying which field
    is not what (without the file:line, which the reader adds). A type this module does not know (a later
    ttinspect's) is checked as bounded JSON only."""
    try:
        RECORDS.get(kind, json_value)(record, ())
    except Mismatch as bad:
        field = field_text(bad.field)
        if bad.expected == _MISSING:
            return f"the {kind} record has no {field!r}"
        if bad.key:
            return f"{field!r} of the {kind} record has a key {shown(bad.value)}; expected {bad.expected}"
        return f"{field!r} of the {kind} record is {shown(bad.value)}; expected {bad.expected}"
    return None

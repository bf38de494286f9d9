"""What a snapshot file may hold, field by field: a snapshot is committed, merged and hand-edited, so it is
read as data from elsewhere. Every field is checked against its type and bounds here, once, and the first one
that breaks them is named by its path (`entries["k.py:a@sm_90"].findings[0].severity`), which store.py turns
into the file's line. What passes reaches the gate with the types the gate reasons about; nothing else does.
"""

from __future__ import annotations

import re
from typing import Any

_TOP = {"format": str, "triton_version": str, "targets": list, "facts": list, "entries": dict}
_TOP_REQUIRED = ("format", "entries")
_ENTRY_REQUIRED = ("kernel", "target", "facts", "findings")
_ENTRY_OPTIONAL = ("file", "line", "device")
_FINDING_REQUIRED = ("id", "severity", "title")
_FINDING_OPTIONAL = ("slug", "line", "fix")
_SEVERITIES = ("info", "warning", "error")
# The facts the gate compares by value (gate.classify): their types are exact. Other facts are shown as
# they are, so any small JSON value will do.
_GUARDED_TYPES: dict[str, tuple[type, ...]] = {
    "spills": (int,), "pipeline_depth": (int,), "tensor_core_path": (str,), "occupancy": (str, int, float),
    "fits": (bool,), "shared_memory": (int,)}
_EXTRA_FACTS = ("fits", "loop_depths")  # written beside FACTS (entries.compute)
# `FILE:EXAMPLE@TARGET`, with `#triton=X` for a release's entries (run.RELEASE)
_KEY = re.compile(r"[^\x00-\x1f\x7f]+:[^:@\x00-\x1f\x7f]+@[^@#\s\x00-\x1f\x7f]+(#triton=[^\s#\x00-\x1f\x7f]+)?")
MAX_TEXT = 65536  # characters in one string: a finding's fix is a few hundred
MAX_ITEMS = 100_000  # entries, findings, list items
MAX_DEPTH = 4  # a fact's nesting: block sizes are pairs in a list (depth 2)


class Invalid(Exception):
    """The field at `path` breaks the schema (not a TTInspectError: store.py adds the file and line)."""

    def __init__(self, path: tuple[str | int, ...], message: str):
        super().__init__(message)
        self.path, self.message = path, message


def field_name(path: tuple[str | int, ...]) -> str:
    """`entries["k.py:a@sm_90"].findings[0].severity`: a path as a reader finds it in the file."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else f"[{_quoted(step)}]" if text == "entries" \
            else f".{step}" if text else step
    return text or "the document"


def validate(document: Any, facts: tuple[str, ...]) -> None:
    """Raise Invalid for the first field that is not as the format says (`facts`: the FACTS of the format)."""
    if not isinstance(document, dict):
        raise Invalid((), f"must be a JSON object, got {_kind(document)}")
    _known_keys(document, (), tuple(_TOP), _TOP_REQUIRED)
    for key, kind in _TOP.items():
        if key in document and not isinstance(document[key], kind):
            raise Invalid((key,), f"must be {_KIND_NAMES[kind]}, got {_kind(document[key])}")
    for key in ("format", "triton_version"):
        if key in document:
            _text(document[key], (key,))
    for key in ("targets", "facts"):
        for index, value in enumerate(_bounded_list(document.get(key, []), (key,))):
            if not isinstance(value, str):
                raise Invalid((key, index), f"must be a string, got {_kind(value)}")
            _text(value, (key, index), name=True)
    entries = document["entries"]
    if len(entries) > MAX_ITEMS:
        raise Invalid(("entries",), f"holds {len(entries)} entries, more than {MAX_ITEMS}")
    for key, entry in entries.items():
        _entry(key, entry, facts)


def _entry(key: str, entry: Any, facts: tuple[str, ...]) -> None:
    path: tuple[str | int, ...] = ("entries", key)
    if len(key) > 1000 or not _KEY.fullmatch(key):
        raise Invalid(path, f"the entry key {_shown(key)} is not FILE:EXAMPLE@TARGET")
    if not isinstance(entry, dict):
        raise Invalid(path, f"must be an object, got {_kind(entry)}")
    _known_keys(entry, path, _ENTRY_REQUIRED + _ENTRY_OPTIONAL, _ENTRY_REQUIRED)
    for name in ("kernel", "target", "file", "device"):
        if name in entry and not (entry[name] is None and name == "file"):
            if not isinstance(entry[name], str):
                raise Invalid((*path, name), f"must be a string, got {_kind(entry[name])}")
            _text(entry[name], (*path, name), name=True)
    _line(entry.get("line"), (*path, "line"))
    if not isinstance(entry["facts"], dict):
        raise Invalid((*path, "facts"), f"must be an object, got {_kind(entry['facts'])}")
    for fact, value in entry["facts"].items():
        where = (*path, "facts", fact)
        if fact not in facts and fact not in _EXTRA_FACTS:
            raise Invalid(where, f"{_shown(fact)} is not a fact this format keeps")
        kinds = _GUARDED_TYPES.get(fact)
        if kinds is not None and value is not None and (not isinstance(value, kinds)
                                                          or isinstance(value, bool) != (bool in kinds)):
            raise Invalid(where, f"must be {' or '.join(k.__name__ for k in kinds)} or null, got {_kind(value)}")
        _json(value, where, 0)
    if not isinstance(entry["findings"], list):
        raise Invalid((*path, "findings"), f"must be a list, got {_kind(entry['findings'])}")
    for index, finding in enumerate(_bounded_list(entry["findings"], (*path, "findings"))):
        _finding(finding, (*path, "findings", index))


def _finding(finding: Any, path: tuple[str | int, ...]) -> None:
    if not isinstance(finding, dict):
        raise Invalid(path, f"must be an object, got {_kind(finding)}")
    _known_keys(finding, path, _FINDING_REQUIRED + _FINDING_OPTIONAL, _FINDING_REQUIRED)
    for name in ("id", "title", "slug", "fix"):
        value = finding.get(name)
        if value is None and name in _FINDING_OPTIONAL:
            continue
        if not isinstance(value, str):
            raise Invalid((*path, name), f"must be a string, got {_kind(value)}")
        _text(value, (*path, name), name=name in ("id", "slug"))
    if finding["severity"] not in _SEVERITIES:
        raise Invalid((*path, "severity"), f"{_shown(finding['severity'])}: one of {', '.join(_SEVERITIES)}")
    _line(finding.get("line"), (*path, "line"))


def _known_keys(value: dict, path: tuple[str | int, ...], known: tuple[str, ...], required: tuple[str, ...]) -> None:
    for key in value:
        if key not in known:
            raise Invalid((*path, key), f"unknown field {_shown(key)}; fields: {', '.join(known)}")
    for key in required:
        if key not in value:
            raise Invalid(path, f"lacks its {key!r} field")


def _line(value: Any, path: tuple[str | int, ...]) -> None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 10**9):
        raise Invalid(path, f"must be a line number or null, got {_shown(value)}")


def _bounded_list(value: list, path: tuple[str | int, ...]) -> list:
    if len(value) > MAX_ITEMS:
        raise Invalid(path, f"holds {len(value)} items, more than {MAX_ITEMS}")
    return value


def _json(value: Any, path: tuple[str | int, ...], depth: int) -> None:
    """A fact's value: small JSON (bounded depth, items and text), no control character in any string."""
    if depth > MAX_DEPTH:
        raise Invalid(path, f"nests deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        _text(value, path)
    elif isinstance(value, (list, dict)):
        items = value.items() if isinstance(value, dict) else enumerate(_bounded_list(value, path))
        for key, item in items:
            if isinstance(key, str):
                _text(key, (*path, key), name=True)
            _json(item, (*path, key), depth + 1)
    elif isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        raise Invalid(path, f"must be a finite number, got {value}")


def _text(value: str, path: tuple[str | int, ...], name: bool = False) -> None:
    """A string the gate prints: bounded, and no control character (an escape sequence in a title would
    rewrite a CI log; a NUL is no name); a name is on one line, a text may hold newlines and tabs."""
    if len(value) > (1000 if name else MAX_TEXT):
        raise Invalid(path, f"is {len(value)} characters long, more than {1000 if name else MAX_TEXT}")
    allowed = () if name else ("\n", "\t")
    bad = next((c for c in value if (ord(c) < 32 or ord(c) == 127) and c not in allowed), None)
    if bad is not None:
        raise Invalid(path, f"holds the control character {bad!r}")


_KIND_NAMES = {str: "a string", list: "a list", dict: "an object"}


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _quoted(key: str) -> str:
    return _shown(key).replace("'", '"', 2) if "'" not in key and '"' not in key else _shown(key)

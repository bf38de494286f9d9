"""What a snapshot file may hold, field by field: a snapshot is committed, merged and hand-edited, so it is
read as data from elsewhere. Every field is checked against its type and bounds here, once, and the first one
that breaks them is named by its path (`entries["k.py:a@sm_90"].findings[0].severity`), which store.py turns
into the file's line. What passes reaches the gate with the types the gate reasons about; nothing else does.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Callable

from ttinspect.errors import TTInspectError
from ttinspect.targets.lookup import parse_arch
from ttinspect.toolchains.registry import VERSION_RE

_TOP = {"format": str, "triton_version": str, "targets": list, "facts": list, "entries": dict}
_TOP_REQUIRED = ("format", "entries")
_ENTRY_REQUIRED = ("kernel", "target", "facts", "findings")
_ENTRY_OPTIONAL = ("file", "line", "device", "sources")
_FINDING_REQUIRED = ("id", "severity", "title")
_FINDING_OPTIONAL = ("slug", "line", "fix")
_SEVERITIES = ("info", "warning", "error")
# The tensor-core paths the compilers' code can take (facts/ptx.py, facts/amd.py), as gate.py ranks them.
TENSOR_CORE_PATHS = ("none", "mma.sync", "mfma", "wmma", "wgmma", "tcgen05")
_PERCENT = re.compile(r"(0|[1-9][0-9]?|100)%")  # occupancy as the resource calculators write it: f"{x:.0%}"


def _count(value: Any) -> str | None:
    if not isinstance(value, int) or isinstance(value, bool):
        return f"must be int or null, got {_kind(value)}"
    return None if 0 <= value < 10**12 else f"must be a count (0 or more), got {value}"


def _one_of(choices: tuple[str, ...]) -> Callable[[Any], str | None]:
    return lambda value: None if value in choices else f"{_shown(value)}: one of {', '.join(choices)} or null"


# The facts the gate compares by value (gate.classify): each value is one the fact can take (its type, its
# enumeration or range), so a hand edit cannot make a regression pass or an improvement fail. Other facts are
# shown as they are, so any small JSON value will do.
_GUARDED_VALUES: dict[str, Callable[[Any], str | None]] = {
    "spills": _count, "pipeline_depth": _count, "shared_memory": _count,
    "tensor_core_path": _one_of(TENSOR_CORE_PATHS),
    "occupancy": lambda value: None if isinstance(value, str) and _PERCENT.fullmatch(value)
    else f"must be a percentage from 0% to 100% (\"62%\") or null, got {_shown(value)}",
    "fits": lambda value: None if isinstance(value, bool) else f"must be bool or null, got {_kind(value)}"}
_EXTRA_FACTS = ("fits", "loop_depths")  # written beside FACTS (entries.compute)
RELEASE = "#triton="  # a release's entries are keyed `FILE:EXAMPLE@TARGET#triton=X` (run.py reads it here)
_TARGET = re.compile(r"[A-Za-z0-9_.:+-]{1,64}")  # sm_90, sm90, sm_90a, gfx942, gfx90a:xnack-
_NOT_IN_A_NAME = ":@#"  # the key's separators: FILE:EXAMPLE@TARGET#triton=X
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
    why = key_problem(key)
    if why:
        raise Invalid(path, f"is not FILE:EXAMPLE@TARGET: {why}")
    if not isinstance(entry, dict):
        raise Invalid(path, f"must be an object, got {_kind(entry)}")
    _known_keys(entry, path, _ENTRY_REQUIRED + _ENTRY_OPTIONAL, _ENTRY_REQUIRED)
    for name in ("kernel", "target", "file", "device"):
        if name in entry and not (entry[name] is None and name == "file"):
            if not isinstance(entry[name], str):
                raise Invalid((*path, name), f"must be a string, got {_kind(entry[name])}")
            _text(entry[name], (*path, name), name=True)
    target = key.partition(RELEASE)[0].rpartition("@")[2]
    if entry["target"] not in (target, _canonical(target)):  # the gate reads the key, a reader the field
        raise Invalid((*path, "target"), f"{_shown(entry['target'])} disagrees with its key's target {target!r}")
    if entry.get("file") is not None and library_path_problem(entry["file"]):
        raise Invalid((*path, "file"), f"{_shown(entry['file'])} {library_path_problem(entry['file'])}")
    _line(entry.get("line"), (*path, "line"))
    if not isinstance(entry["facts"], dict):
        raise Invalid((*path, "facts"), f"must be an object, got {_kind(entry['facts'])}")
    for fact, value in entry["facts"].items():
        where = (*path, "facts", fact)
        if fact not in facts and fact not in _EXTRA_FACTS:
            raise Invalid(where, f"{_shown(fact)} is not a fact this format keeps")
        check = _GUARDED_VALUES.get(fact)
        wrong = check(value) if check is not None and value is not None else None
        if wrong:
            raise Invalid(where, wrong)
        _json(value, where, 0)
    _sources(entry.get("sources"), (*path, "sources"))
    if not isinstance(entry["findings"], list):
        raise Invalid((*path, "findings"), f"must be a list, got {_kind(entry['findings'])}")
    for index, finding in enumerate(_bounded_list(entry["findings"], (*path, "findings"))):
        _finding(finding, (*path, "findings", index))


@functools.lru_cache(maxsize=256)
def _canonical(target: str) -> str:
    """The name an entry records for the target its key was made with (`sm90`, `sm_90a` -> `sm_90`)."""
    try:
        return parse_arch(target).name
    except TTInspectError:  # not a target this ttinspect knows: only the same name agrees
        return target


def key_problem(key: str) -> str | None:
    """Why `key` is not `FILE:EXAMPLE@TARGET[#triton=X.Y.Z]` with FILE a path inside the library (None: it is)."""
    if len(key) > 2000:
        return f"{len(key)} characters long"
    base, release_mark, release = key.partition(RELEASE)
    head, at, target = base.rpartition("@")
    file, colon, example = head.rpartition(":")
    if not (at and colon and file):
        return "a part is missing"
    if release_mark and not VERSION_RE.fullmatch(release):
        return f"its release {_shown(release)} is not a version X.Y.Z"
    if not _TARGET.fullmatch(target):
        return f"its target {_shown(target)} is not a target's name"
    problem = example_name_problem(example)
    if problem:
        return problem
    problem = library_path_problem(file)
    return f"its FILE {_shown(file)} {problem}" if problem else None


def example_name_problem(name: Any) -> str | None:
    """Why `name` cannot be an example's name in an entry key (None: it can): not a string, empty, too long, or
    holding a key separator (`:`, `@`, `#`), a control character or a lone surrogate (not Unicode text)."""
    if not isinstance(name, str):
        return f"the example name {_shown(name)} is {_kind(name)}, not a string"
    if not name.strip() or len(name) > 200:
        return f"the example name {_shown(name)} is empty or longer than 200 characters"
    bad = next((c for c in name if not_in_a_name(c)), None)
    if bad is not None:
        what = "a key separator (FILE:EXAMPLE@TARGET)" if bad in _NOT_IN_A_NAME else \
            "a lone surrogate (not Unicode text)" if 0xD800 <= ord(bad) <= 0xDFFF else "a control character"
        return f"the example name {_shown(name)} holds {bad!r}, {what}"
    return None


def not_in_a_name(char: str) -> bool:
    """A character an example's name cannot hold: a key separator, or one that is no printable text."""
    return char in _NOT_IN_A_NAME or _unprintable(char)


def library_path_problem(file: str) -> str | None:
    """Why `file` is not a normalized path relative to the library's root, inside it (None: it is; the reason
    reads after the file's name). A snapshot from elsewhere names files, never places outside the library: no
    absolute path, no `..`, no `.`, no backslash (the key is written with `/` on every system)."""
    bad = next((c for c in file if _unprintable(c) or c == "\\"), None)
    if bad is not None:
        return f"holds {bad!r} (a library path holds no control character, lone surrogate or backslash)"
    parts = file.split("/")
    if file.startswith("/") or re.match(r"[A-Za-z]:/", file) or any(p in ("", ".", "..") for p in parts):
        return "is not a path inside the library (relative to its root, normalized, no '..')"
    return None


def _unprintable(char: str) -> bool:
    """A control character (C0, DEL, C1), a bidirectional control, or a lone surrogate (not Unicode text: it
    cannot even be written as UTF-8)."""
    code = ord(char)
    return code < 32 or 127 <= code < 160 or 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069 \
        or 0xD800 <= code <= 0xDFFF


def _sources(value: Any, path: tuple[str | int, ...]) -> None:
    """An entry's source fingerprints (snapshot/sources.py): short names to short one-line texts. A piece this
    release does not know is read and left unused (a later release may record more)."""
    if value is None:
        return
    if not isinstance(value, dict) or len(value) > 16:
        raise Invalid(path, f"must be an object of at most 16 fingerprints, got {_kind(value)}")
    for name, text in value.items():
        if not isinstance(text, str) or len(text) > 200:
            raise Invalid((*path, name), f"must be a string of at most 200 characters, got {_shown(text)}")
        _text(name, (*path, name), name=True)
        _text(text, (*path, name), name=True)


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
    surrogate = next((c for c in value if 0xD800 <= ord(c) <= 0xDFFF), None)
    if surrogate is not None:  # `"\ud800"` parses, yet is no text: it cannot be written, printed or compared
        raise Invalid(path, f"holds {surrogate!r}, a lone surrogate: not Unicode text")


_KIND_NAMES = {str: "a string", list: "a list", dict: "an object"}


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _quoted(key: str) -> str:
    return _shown(key).replace("'", '"', 2) if "'" not in key and '"' not in key else _shown(key)

"""The snapshot file: one JSON document, stable in order and formatting (keys sorted, two-space indent, a
final newline) so that a change in review reads as the facts that changed and nothing else.

    {"format": "ttinspect-snapshot/1", "triton_version": "3.9.0", "targets": [...], "facts": [...],
     "entries": {"mylib/ops/add.py:small@sm_90": {"kernel", "target", "file", "line", "facts", "findings"}}}

ttinspect replaces the file only when it parses as a snapshot it wrote (every field checked: schema.py),
through outputs.py (a link, FIFO or device at the path is refused; the write is atomic), holding a lock and
merging into what is there (write_merged).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

from ttinspect.errors import UsageError
from ttinspect.snapshot.entries import FACTS, FORMAT
from ttinspect.files.source_files import read_regular
from ttinspect.files.lock import held
from ttinspect.files.outputs import check_output, write_atomically
from ttinspect.snapshot.positions import line_of
from ttinspect.snapshot.schema import Invalid, field_name, validate

_ENTRY_KEYS = ("kernel", "target", "file", "line", "facts", "findings")
# `sources` (snapshot/sources.py: the body's and the call's fingerprints) is written where an entry has it: an entry
# kept from an older snapshot, which lacks it, is written as it was.
# An entry's `device` (written by earlier releases) is read, never written: whether this process's import asked the
# virtual device depends on which worker imported which file first, so it made cold runs differ (entries.compute).


def dumps(entries: dict[str, dict[str, Any]], triton_version: str, targets: tuple[str, ...]) -> str:
    document = {"format": FORMAT, "triton_version": triton_version, "targets": list(targets), "facts": list(FACTS),
                "entries": {key: {**{k: entry.get(k) for k in _ENTRY_KEYS},
                                  **({"sources": entry["sources"]} if entry.get("sources") else {})}
                            for key, entry in sorted(entries.items())}}
    return _stable(document) + "\n"


def _stable(value: Any, depth: int = 0) -> str:
    """Keys sorted; the document, its entries, each entry and its facts one per line; a fact's value or a
    finding on its own single line (so a changed fact is a one-line diff in review)."""
    if depth >= 4 or not isinstance(value, (dict, list)) or not value:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {_stable(v, depth + 1)}"
                 for k, v in sorted(value.items())]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if depth >= 3:
        return "[\n" + ",\n".join(f"{inner}{json.dumps(v, sort_keys=True, ensure_ascii=False)}" for v in value) \
            + f"\n{pad}]"
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


MAX_BYTES = 256 << 20  # 100 000 entries of a few KB each; a bigger file is not one of ours
# git's conflict markers, each at the start of a line: a merge that left both sides in the file
_CONFLICT = re.compile(r"^[ \t]*(<<<<<<<( |$)|=======$|>>>>>>>( |$)|\|{7}( |$))", re.MULTILINE)
_CONFLICT_LINE = re.compile(_CONFLICT.pattern + ".*$", re.MULTILINE)
_OURS = re.compile(r'^\s*"format": "ttinspect-snapshot/', re.MULTILINE)


class _Duplicate(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def load(path: Path) -> dict[str, Any]:
    """The committed snapshot, every field checked (schema.py). Missing, unreadable, not a snapshot, or one
    that does not parse — a merge conflict, a hand edit, a truncation, a key written twice: one line naming
    the file, the line and the field. A snapshot that does not parse is never rebuilt over: it is refused."""
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"{path}: no snapshot yet; make one with `ttinspect snapshot` and commit it")
    try:
        too_big = path.stat().st_size > MAX_BYTES
    except (OSError, ValueError):
        too_big = False
    if too_big:
        raise UsageError(f"{path}: {path.stat().st_size} bytes, more than a snapshot holds ({MAX_BYTES}); not read")
    data = read_regular(path)
    if data is None:
        raise UsageError(f"{path}: not a regular file; the snapshot must be one")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise UsageError(f"{path}:{line}: {_whose(data)} (not UTF-8 at byte {error.start})") from None
    conflict = _CONFLICT.search(text)
    if conflict and _whose(_CONFLICT_LINE.sub("", text).encode()) != "not a ttinspect snapshot":  # markers anywhere,
        # line 1 included (a snapshot wrapped whole in one side and the other): the merge is the cause, said so
        line = text.count("\n", 0, conflict.start()) + 1
        raise UsageError(f"{path}:{line}: a ttinspect snapshot with git conflict markers "
                         f"({text[conflict.start():].splitlines()[0][:40]!r}); take one side (git checkout --ours "
                         "or --theirs), then run `ttinspect snapshot` to add this side's kernels again") from None
    try:
        document = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except _Duplicate as error:
        line = line_of_text(text, json.dumps(error.key) + ":", last=True)
        raise UsageError(f"{path}:{line}: a damaged ttinspect snapshot: the key {error.key!r} is written twice "
                         "(an entry would be lost); keep one") from None
    except ValueError as error:  # json's own error has the line: JSONDecodeError
        where = getattr(error, "lineno", None) or 1
        reason = getattr(error, "msg", str(error))
        raise UsageError(f"{path}:{where}: {_whose(data)} (not JSON: {reason})") from None
    except RecursionError:
        raise UsageError(f"{path}:1: {_whose(data)} (not JSON: nested too deep)") from None
    if not isinstance(document, dict) or not isinstance(document.get("format"), str) \
            or not document["format"].startswith("ttinspect-snapshot/"):
        line = line_of(text, ("format",)) if isinstance(document, dict) else 1
        raise UsageError(f"{path}:{line}: not a ttinspect snapshot (no format key)")
    if document["format"] != FORMAT:
        raise UsageError(f"{path}:{line_of(text, ('format',))}: a {_plain(document['format'])} snapshot; this "
                         f"ttinspect reads {FORMAT}: remove it and make it again with `ttinspect snapshot` (and "
                         "review the diff)")
    try:
        validate(document, FACTS)
    except Invalid as error:
        raise UsageError(f"{path}:{line_of(text, error.path)}: a damaged ttinspect snapshot: "
                         f"{field_name(error.path)} {error.message}") from None
    return document


def _whose(data: bytes) -> str:
    """Whose a file that does not parse looks like: a JSON object with the format's key (a snapshot damaged),
    or anything else (a NOTES.md that quotes the format is not one) — said, and refused either way."""
    text = data.decode("utf-8", "replace")
    ours = text.lstrip().startswith("{") and _OURS.search(text)
    return "a damaged ttinspect snapshot" if ours else "not a ttinspect snapshot"


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document: dict[str, Any] = {}
    for key, value in pairs:
        if key in document:
            raise _Duplicate(key)
        document[key] = value
    return document


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _plain(text: str) -> str:
    return text if text.isprintable() and len(text) < 60 else repr(text[:60])


def line_of_text(text: str, needle: str, last: bool = False) -> int:
    at = text.rfind(needle) if last else text.find(needle)
    return text.count("\n", 0, max(at, 0)) + 1


def existing(path: Path) -> dict[str, Any] | None:
    """The snapshot a plain `ttinspect snapshot` merges into: None when there is none yet. Ownership is
    decided by parsing: a file that does not parse as one of ttinspect's snapshots is never replaced — a
    damaged snapshot (a merge conflict, a hand edit) is refused with its line, anything else (a NOTES.md that
    quotes the format) as not ttinspect's."""
    if not path.exists() and not path.is_symlink():
        return None
    check_output(path, force=True, option="snapshot")  # a link, a FIFO, a device, a folder: refused at once
    try:
        return load(path)
    except UsageError as error:
        if "not a ttinspect snapshot" in str(error) and "damaged" not in str(error):
            raise UsageError(f"{path} exists and is not a snapshot ttinspect wrote: it is left as it is "
                             "(remove it, or set snapshot = \"...\" in [tool.ttinspect])") from None
        raise


def write(path: Path, text: str) -> None:
    """Write the snapshot atomically (outputs.py: a link, FIFO or device at the path is refused). Ownership
    is decided by `existing`, under the lock (write_merged)."""
    write_atomically(check_output(path, force=True, option="snapshot"), text, force=True)


def write_merged(path: Path, text_for: Callable[[dict[str, Any] | None], str], *, wait_s: float = 60.0) -> None:
    """Write what `text_for(the snapshot as it is now)` makes, holding `<path>.lock` (files/lock.py): read
    again under the lock, so a run that wrote meanwhile is merged with, never overwritten."""
    with held(path, wait_s=wait_s):
        write(path, text_for(existing(path)))

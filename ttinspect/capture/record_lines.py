"""A capture file's lines as records: each line one JSON object, each key written once, every string
Unicode text — whoever wrote the file (format.py reads the records; schema.py checks their fields).

Two things json.loads lets through are refused here, with the file:line: a key written twice in one object
(`"name":"a","name":"b"` — json keeps the last, so what a reader sees would depend on the reader), and a
lone surrogate (`"\\ud800"`), which no UTF-8 file can hold and which fails later wherever the string is
written out (a terminal, a page). A run that stops mid-line leaves its last line torn: dropped with a
warning; a file whose only line is torn, or whose lines end in CR alone, holds no header and is said so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ttinspect.capture.file_bytes import CaptureError, capture_bytes
from ttinspect.capture.schema import MAX_DEPTH, deep_field, field_text, not_text, shown


def records(path: str | Path) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """Every record of the file as (line number, dict), and the warnings (a torn last line). Raises
    CaptureError for anything else that is wrong."""
    where = str(path)
    data, warnings = capture_bytes(Path(path))
    lines = data.split(b"\n")
    torn = lines.pop() if lines else b""  # after the last newline: empty, or a line the run never finished
    found: list[tuple[int, dict[str, Any]]] = []
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        found.append((number, _text_checked(_decode(raw, f"{where}:{number}"), raw, f"{where}:{number}")))
    if torn.strip():
        at = f"{where}:{len(lines) + 1}"
        try:
            record = _decode(torn, at)
        except CaptureError:
            if not found:
                raise CaptureError(_no_header_line(torn, where)) from None
            cut = next((w for w in warnings if w.startswith(f"{where}: the gzip stream ends early")), None)
            if cut is not None:  # one cause, one line: the file was cut short, which tore its last line
                warnings.remove(cut)
            warnings.append(f"{at}: the last line is incomplete ("
                            + ("the gzip stream ends early: the file was cut short" if cut else
                               "the run stopped while writing it") + "); it was left out")
        else:
            found.append((len(lines) + 1, _text_checked(record, torn, at)))
    if not found:
        raise CaptureError(f"{where}: empty; a capture starts with its header line")
    return found, warnings


def _no_header_line(torn: bytes, where: str) -> str:
    """Why a file whose only line is not whole holds no header: its lines end in CR alone, or it is torn."""
    if b"\r" in torn:
        return (f"{where}: no line of it ends in a newline (its lines end in a carriage return alone); a "
                "capture is JSON Lines, each line ending in \\n")
    return (f"{where}:1: a torn header: the file holds only the start of its first line, with no newline after "
            "it (the run stopped as it began, or the file was cut short)")


class _TwiceNamed(Exception):
    """A key written twice in one JSON object: json.loads would keep the last one silently."""


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _TwiceNamed(key)
            seen.add(key)
    return value


def _decode(raw: bytes, at: str) -> dict[str, Any]:
    try:
        value = json.loads(raw.decode("utf-8"), object_pairs_hook=_once_each)
    except _TwiceNamed as twice:
        raise CaptureError(f"{at}: the key {shown(twice.args[0])} is written twice in one object; a record "
                           "names each field once (which value is meant?)") from None
    except UnicodeDecodeError as error:
        raise CaptureError(f"{at}: not UTF-8 text (byte {error.start + 1} of the line)") from None
    except RecursionError:  # a value nested thousands deep: no record of ours is
        field = deep_field(raw.decode("utf-8"))
        named = f"{shown(field)} is " if field is not None else "a JSON value "
        raise CaptureError(f"{at}: damaged line, {named}nested too deeply for a capture (more than "
                           f"{MAX_DEPTH} levels)") from None
    except ValueError as error:
        raise CaptureError(f"{at}: damaged line, not JSON ({str(error)[:200]})") from None
    if not isinstance(value, dict):
        raise CaptureError(f"{at}: damaged line, a JSON {type(value).__name__} where a record (object) belongs")
    return value


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _text_checked(record: dict[str, Any], raw: bytes, at: str) -> dict[str, Any]:
    """The record, once every string in it is Unicode text (schema.not_text); a lone surrogate can come only
    from a `\\udXXX` escape, so a line without one is not walked."""
    found = not_text(record) if _SURROGATE_ESCAPE.search(raw) else None
    if found is not None:
        field, value, key = found
        kind = record.get("type")
        record_name = f"the {kind} record" if isinstance(kind, str) and not not_text(kind) else "the record"
        place = (f"a key of {field_text(field)!r}" if field else "a key") if key else repr(field_text(field))
        index = next(i for i, char in enumerate(value) if 0xD800 <= ord(char) <= 0xDFFF)
        raise CaptureError(f"{at}: {place} of {record_name} is {shown(value)}, not Unicode text: it holds the lone "
                           f"surrogate {ascii(value[index])} at character {index + 1} (a capture's strings are "
                           "UTF-8 text)")
    return record



"""Where a value sits in a JSON text: the line a message names (`ttinspect.snapshot.json:42`), since `json`
keeps no positions. Asked only after a parse, for a refusal: it walks down the one path asked, skipping every
other value with the C decoder, so its work is one pass over the text and its depth the path's length."""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]  # public in json.decoder, not in its stubs

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def line_of(text: str, path: tuple[str | int, ...]) -> int:
    """The 1-based line where the value at `path` (object keys and list indexes) starts; where a step is
    missing, the line of the deepest value found on the way (the object that lacks the key). For a key that
    appears twice, its last occurrence (the one `json` keeps)."""
    index = _skip(text, 0)
    for step in path:
        try:
            found = _member(text, index, step) if isinstance(step, str) else _item(text, index, step)
        except (ValueError, IndexError):  # not the JSON the path assumed: stop where it differs
            found = None
        if found is None:
            break
        index = found
    return text.count("\n", 0, index) + 1


def _skip(text: str, index: int) -> int:
    match = _SPACE.match(text, index)
    return match.end() if match else index


def _member(text: str, index: int, key: str) -> int | None:
    if text[index] != "{":
        return None
    index, found = _skip(text, index + 1), None
    while text[index] != "}":
        name, index = scanstring(text, index + 1)  # text[index] is the key's opening quote
        index = _skip(text, _skip(text, index) + 1)  # past the colon
        if name == key:
            found = index
        _, index = _DECODER.raw_decode(text, index)
        index = _skip(text, index)
        if text[index] == ",":
            index = _skip(text, index + 1)
    return found


def _item(text: str, index: int, position: int) -> int | None:
    if text[index] != "[":
        return None
    index, count = _skip(text, index + 1), 0
    while text[index] != "]":
        if count == position:
            return index
        _, index = _DECODER.raw_decode(text, index)
        index = _skip(text, index)
        if text[index] == ",":
            index = _skip(text, index + 1)
        count += 1
    return None

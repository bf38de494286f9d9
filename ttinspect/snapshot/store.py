"""The snapshot file: one JSON document, stable in order and formatting (keys sorted, two-space indent, a
final newline) so that a change in review reads as the facts that changed and nothing else.

    {"format": "ttinspect-snapshot/1", "triton_version": "3.9.0", "targets": [...], "facts": [...],
     "entries": {"mylib/ops/add.py:small@sm_90": {"kernel", "target", "file", "line", "facts", "findings"}}}

ttinspect replaces the file only when it is a snapshot it wrote (the format key), through outputs.py (a
link, FIFO or device at the path is refused; the write is atomic).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ttinspect.errors import UsageError
from ttinspect.snapshot.entries import FACTS, FORMAT
from ttinspect.files.source_files import read_regular
from ttinspect.files.outputs import check_output, write_atomically

_ENTRY_KEYS = ("kernel", "target", "file", "line", "facts", "findings")
_OPTIONAL_KEYS = ("device",)  # written only where there is one: the virtual device the kernel's code asked


def dumps(entries: dict[str, dict[str, Any]], triton_version: str, targets: tuple[str, ...]) -> str:
    document = {"format": FORMAT, "triton_version": triton_version, "targets": list(targets), "facts": list(FACTS),
                "entries": {key: {**{k: entry.get(k) for k in _ENTRY_KEYS},
                                  **{k: entry[k] for k in _OPTIONAL_KEYS if entry.get(k)}}
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


def load(path: Path) -> dict[str, Any]:
    """The committed snapshot. Missing, unreadable or not a snapshot: one line naming the file and the fix."""
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"{path}: no snapshot yet; make one with `ttinspect snapshot` and commit it")
    data = read_regular(path)
    if data is None:
        raise UsageError(f"{path}: not a regular file; the snapshot must be one")
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise UsageError(f"{path}: a damaged ttinspect snapshot (not JSON: {error}); make it again with "
                         "`ttinspect snapshot` and review the diff") from None
    if not isinstance(document, dict) or not str(document.get("format", "")).startswith("ttinspect-snapshot/"):
        raise UsageError(f"{path}: not a ttinspect snapshot (no format key)")
    if document["format"] != FORMAT:
        raise UsageError(f"{path}: a {document['format']} snapshot; this ttinspect reads {FORMAT}: make it again "
                         "with `ttinspect snapshot` (and review the diff)")
    entries = document.get("entries")
    if not isinstance(entries, dict) or not all(isinstance(v, dict) for v in entries.values()):
        raise UsageError(f"{path}: its entries are damaged; make it again with `ttinspect snapshot`")
    return document


def existing(path: Path) -> dict[str, Any] | None:
    """The snapshot a plain `ttinspect snapshot` builds on: None when there is none yet, or when the file is
    one of ttinspect's that cannot be read (a merge conflict, an older format: it is made again). A file
    that is not ttinspect's is refused — it is never replaced."""
    if not path.exists() and not path.is_symlink():
        return None
    try:
        return load(path)
    except UsageError:
        data = read_regular(path)
        if data is not None and f'"format": "{FORMAT.rpartition("/")[0]}/'.encode() in data:
            return None  # ours, damaged: made again whole
        if path.is_symlink():
            return None  # refused by write() with what the link is, in one line
        raise UsageError(f"{path} exists and is not a snapshot ttinspect wrote: it is left as it is "
                         "(remove it, or set snapshot = \"...\" in [tool.ttinspect])") from None


def write(path: Path, text: str) -> None:
    """Write the snapshot atomically (outputs.py: a link, FIFO or device at the path is refused). Ownership
    is decided before the work, by `existing`."""
    write_atomically(check_output(path, force=True, option="snapshot"), text, force=True)

"""`ttinspect cache [DIR]`: one row per kernel in Triton's cache — name, target, warps/stages, shared
memory, registers/spills, pipeline depth, tensor-core path, source file:line, Triton version.

A row costs a PTX parse and a cuobjdump run the first time; it is then kept in an index in ttinspect's
cache, keyed by the entry's files (name, size, mtime), so a warm listing of a thousand entries reads one
JSON file and stats the entries (docs/perf.md). Triton's directory is only read (caches/triton.py reads it);
the rows are Reports' facts, hence this module sits above report/, beside cache_table.py that prints them.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ttinspect.caches import store as cache
from ttinspect.caches.triton import default_dir, scan
from ttinspect.errors import TTInspectError, UsageError
from ttinspect.files.source_files import read_regular

INDEX_VERSION = 1
SORT_KEYS = ("id", "name", "target", "num_warps", "num_stages", "shared", "registers", "spills", "depth",
             "tensor_core_path", "source", "triton_version")


@dataclass
class CacheRow:
    id: str
    name: str
    target: str
    num_warps: int | None
    num_stages: int | None
    shared: int | None
    registers: int | None
    spills: int | None
    depth: int | None
    tensor_core_path: str | None
    source: str | None  # "file.py:12"
    triton_version: str | None
    missing: list[str] = field(default_factory=list)  # stages the entry lacks
    unknown: dict[str, str] = field(default_factory=dict)  # column -> why it is unknown

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def entry_row(entry) -> CacheRow:
    """Everything the listing shows about one entry; what cannot be had is None with a reason."""
    # an indexed listing never gets here: the compile path (refs, report) loads only for a new entry
    from ttinspect.refs.tritoncache import entry_build

    try:
        meta = entry.metadata
    except UsageError as error:
        return CacheRow(entry.id, entry.name, "?", None, None, None, None, None, None, None, None, None,
                        entry.missing(), {"*": str(error)})
    location = entry.source_location()
    row = CacheRow(entry.id, entry.name, entry.arch, _int(meta.get("num_warps")), _int(meta.get("num_stages")),
                   _int(meta.get("shared")), None, None, None, None,
                   f"{location[0]}:{location[1]}" if location else None,
                   str(meta["triton_version"]) if meta.get("triton_version") else None, entry.missing())
    if location is None:
        row.unknown["source"] = "no source location in the TTIR"
    if row.triton_version is None:
        row.unknown["triton_version"] = "the metadata does not record it (Triton < 3.3?)"
    from ttinspect.report.collect import report_from_build  # as above: only for an entry not yet indexed

    try:  # a foreign target (entry_build) or an unreadable stage: the four columns are unknown
        report = report_from_build(entry_build(entry), sass=False)
    except TTInspectError as error:
        for key in ("registers", "spills", "depth", "tensor_core_path"):
            row.unknown[key] = str(error)
        return row
    for column, key in (("registers", "registers"), ("spills", "spills"), ("depth", "pipeline_depth"),
                        ("tensor_core_path", "tensor_core_path")):
        fact = report.fact(key)
        setattr(row, column, fact.value)
        if fact.value is None:
            row.unknown[column] = fact.unknown or "unknown"
    return row


def _index_path(root: Path) -> Path:
    key = hashlib.sha256(str(root.resolve()).encode()).hexdigest()
    return cache.cache_root() / "tritoncache-index" / f"{key}.json"


def _load_index(path: Path) -> dict[str, Any]:
    try:
        raw = read_regular(path)
        data = json.loads(raw.decode()) if raw is not None else None
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict) or data.get("version") != INDEX_VERSION or not isinstance(data.get("entries"), dict):
        return {}
    return data["entries"]


def _save_index(path: Path, entries: dict[str, Any]) -> None:
    # A read-only ttinspect cache: the listing is still right, only slower next time.
    cache.write_json(path, {"version": INDEX_VERSION, "entries": entries})


def list_cache(root: Path | None = None, *, name: str | None = None, sort: str | None = None) -> list[CacheRow]:
    root = Path(root).expanduser() if root else default_dir()
    try:
        entries = scan(root)
    except OSError as error:  # a name too long, a loop of links: the path cannot be a cache
        raise UsageError(f"{str(root)[:80]}: {error.strerror or error}") from error
    if not entries and not any(p.is_dir() for p in root.iterdir()):
        raise UsageError(f"{root}: empty — no Triton kernels compiled here yet")
    if not entries:
        raise UsageError(f"{root}: no Triton kernel entries (no <hash>/<name>.json); is it a Triton cache?")
    if name:
        entries = [e for e in entries if fnmatch.fnmatchcase(e.name, name)]
    index_path = _index_path(root)
    index = _load_index(index_path)
    rows, changed = [], False
    for entry in entries:
        signature = entry.signature()
        cached = index.get(entry.id)
        if cached and cached.get("signature") == signature:
            try:
                rows.append(CacheRow(**cached["row"]))
                continue
            except TypeError:  # a row of another layout
                pass
        row = entry_row(entry)
        index[entry.id] = {"signature": signature, "row": row.as_dict()}
        rows.append(row)
        changed = True
    if changed:
        _save_index(index_path, index)
    return sort_rows(rows, sort)


def sort_rows(rows: list[CacheRow], sort: str | None) -> list[CacheRow]:
    if not sort:
        return rows
    descending = sort.startswith("-")
    key = sort[1:] if descending else sort
    if key not in SORT_KEYS:
        raise UsageError(f"--sort {sort}: sort by one of {', '.join(SORT_KEYS)} (prefix - for descending)")
    known = [r for r in rows if getattr(r, key) is not None]
    unknown = [r for r in rows if getattr(r, key) is None]
    return sorted(known, key=lambda r: getattr(r, key), reverse=descending) + unknown

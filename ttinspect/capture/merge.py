"""One capture from the parts of a run: every process recorded itself into a part (session.py); this joins
them into the user's file, written atomically (a temporary file renamed; an existing file is replaced only
with force), and removes the parts only once the file is written.

Joining: one header (the command's argv and cwd, the first process's versions, the first device seen,
"processes": how many were recorded), each source once, compiles of the same content once (ids renumbered
k1, k2, ... in the order they first appear), launches of the same (compile, site) summed with their grids and
argument summaries joined (bounded as in a part), autotune and heuristics records once each. The `end`
record is written when every process that started the run (a part whose parent was not recorded) ended its
part; a process that crashed leaves its lines but no end, and then the capture has none (docs/capture.md).
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ttinspect.capture.format import FORMAT, CaptureError, encode, records
from ttinspect.errors import TTInspectError
from ttinspect.capture.session import MAX_ARGS, MAX_GRIDS
from ttinspect.files.outputs import write_atomically


@dataclass
class Merged:
    """What was joined: for the command's closing line and the API's return value."""
    path: Path
    processes: int = 0
    compiles: int = 0
    launches: int = 0
    complete: bool = False
    warnings: list[str] = field(default_factory=list)


@dataclass
class _Launches:
    count: int = 0
    grids: list[Any] = field(default_factory=list)
    args: list[Any] = field(default_factory=list)


def parts_of(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.ttcap")) if folder.is_dir() else []


def merge(folder: Path, out: Path, *, base_header: Mapping[str, Any], exit_code: int | None,
          compress: bool, force: bool) -> Merged:
    """Join the parts in `folder` into `out` (see the module docstring). `base_header` holds the fields
    the run itself sets (tool, created, argv, cwd); the rest come from the parts. Raises WriteError or
    UsageError when `out` cannot be written; the parts are then kept, and the message names their folder."""
    result = Merged(out)
    parts = _read_parts(folder, result.warnings)
    result.processes = len(parts)
    headers = [part[0][1] for part in parts]
    compiles: dict[str, dict[str, Any]] = {}  # content -> record with its new id
    sources: dict[str, dict[str, Any]] = {}
    launches: dict[tuple[str, str], _Launches] = {}
    once: dict[str, dict[str, Any]] = {}  # autotune and heuristics records, by content
    device = next((h.get("device") for h in headers if h.get("device")), None)
    ended: set[int] = set()
    for index, part in enumerate(parts):
        ids: dict[str, str] = {}
        last: dict[tuple[str, str], dict[str, Any]] = {}
        for _, record in part[1:]:
            kind = record.get("type")
            if kind == "compile":
                content = encode({k: v for k, v in record.items() if k != "id"})
                known = compiles.setdefault(content, {**record, "id": f"k{len(compiles) + 1}"})
                ids[str(record.get("id"))] = known["id"]
            elif kind == "source":
                sources.setdefault(str(record.get("sha256")), record)
            elif kind == "launches":
                last[(str(record.get("compile")), str(record.get("site")))] = record
            elif kind in ("autotune", "heuristics"):
                renamed = _renamed(record, ids)
                once.setdefault(encode(renamed), renamed)
            elif kind == "device":
                device = device or record.get("device")
            elif kind == "end":
                ended.add(index)
        for (old_id, site), record in last.items():
            if old_id in ids:  # a launch of a compile its part never recorded cannot be told apart
                _join(launches.setdefault((ids[old_id], site), _Launches()), record)
    roots = _roots(headers)
    result.complete = roots <= ended  # no process recorded: nothing was cut short either
    result.compiles, result.launches = len(compiles), sum(entry.count for entry in launches.values())
    # the run's own fields, then the first process's versions (a run that recorded no process has none)
    first = headers[0] if headers else {}
    header = {"format": FORMAT, "type": "header", "tool": "ttinspect", **dict(base_header),
              **{k: first.get(k, base_header.get(k)) for k in ("python", "triton", "torch", "interpreter")},
              "device": device, "processes": len(parts)}
    lines = [encode(header)] + [encode(s) for s in sources.values()] + [encode(c) for c in compiles.values()]
    lines += [encode({"type": "launches", "compile": compile_id, "site": site, "count": entry.count,
                      "grids": entry.grids, "args": entry.args})
              for (compile_id, site), entry in launches.items()]
    lines += [encode(record) for record in once.values()]
    if result.complete:
        lines.append(encode({"type": "end", "compiles": result.compiles, "launches": result.launches,
                             "exit_code": exit_code}))
    data = "".join(lines).encode("utf-8")
    try:
        write_atomically(out, gzip.compress(data, mtime=0) if compress else data, force=force)
    except TTInspectError as error:  # the same refusal, saying where the recorded data is
        raise type(error)(f"{error}; each process's part is kept in {folder}") from None
    for part_path in parts_of(folder):
        part_path.unlink()
    try:
        folder.rmdir()
    except OSError:  # something else was put there: left as it is
        pass
    return result


def _read_parts(folder: Path, warnings: list[str]) -> list[list[tuple[int, dict[str, Any]]]]:
    """Each part's records, in the order the processes started; a part that cannot be read is skipped with
    a warning (its process was killed before its header was whole, or it was damaged)."""
    parts = []
    for path in parts_of(folder):
        try:
            found, said = records(path)
        except CaptureError as error:
            warnings.append(f"{error}; that process's records are left out")
            continue
        warnings += [f"{message} (a process that stopped mid-write)" for message in said]
        if found[0][1].get("type") != "header":
            warnings.append(f"{path}: no header; that process's records are left out")
            continue
        parts.append(found)
    parts.sort(key=lambda part: str(part[0][1].get("created", "")))
    return parts


def _roots(headers: list[dict[str, Any]]) -> set[int]:
    """The parts of the processes that started the run: their parent is no recorded process (a fork child
    carries `parent_pid`; a started one's ppid is its parent's pid)."""
    pids = {h.get("pid") for h in headers}
    return {i for i, h in enumerate(headers) if "parent_pid" not in h and h.get("ppid") not in pids}


def _renamed(record: dict[str, Any], ids: Mapping[str, str]) -> dict[str, Any]:
    """An autotune or heuristics record with the compile ids of the joined file."""
    renamed = dict(record)
    if isinstance(record.get("compiles"), list):
        renamed["compiles"] = [ids[c] for c in record["compiles"] if c in ids]
    if "compile" in record:
        renamed["compile"] = ids.get(record["compile"])
    return renamed


def _join(entry: _Launches, record: Mapping[str, Any]) -> None:
    count = record.get("count")
    entry.count += count if isinstance(count, int) else 0
    for grid in record.get("grids") or []:
        if len(entry.grids) < MAX_GRIDS and grid not in entry.grids:
            entry.grids.append(grid)
    for args in record.get("args") or []:
        if len(entry.args) < MAX_ARGS and args not in entry.args:
            entry.args.append(args)

"""One capture from the parts of a run: every process recorded itself into a part (session.py); this joins
them into the user's file, written atomically (a temporary file renamed; an existing file is replaced only
with force), and removes the parts only once the file is written.

Joining: one header (the command's argv and cwd, the first process's versions, the first device seen,
"processes": how many were recorded), each source once, compiles of the same content once (ids renumbered
k1, k2, ... in the order they first appear), launches of the same (compile, site) summed with their grids and
argument summaries joined (bounded as in a part), autotune and heuristics records once each. The `end`
record's `lost` field lists, one line each, what the run did that the capture does not hold (capture/lost.py):
a process that ended without closing its part (killed, crashed), one whose writes failed (a full disk), one
still recording when the join could wait no longer, a part that cannot be read, a parts folder removed or
replaced while the program ran. The capture is whole only when that list is empty; `complete` says so.
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ttinspect.capture import lost as losses
from ttinspect.capture.format import FORMAT, CaptureError, encode, records
from ttinspect.capture.session import MAX_ARGS, MAX_GRIDS
from ttinspect.errors import TTInspectError
from ttinspect.files.outputs import write_atomically

Part = tuple[Path, list[tuple[int, dict[str, Any]]]]  # a part's path and its records


@dataclass
class Merged:
    """What was joined: for the command's closing line and the API's return value."""
    path: Path
    processes: int = 0
    compiles: int = 0
    launches: int = 0
    complete: bool = False
    warnings: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)  # the end record's `lost`: one line per loss


@dataclass
class Run:
    """What the join knows of the run besides its parts."""
    folder_token: str | None = None  # what the parts folder held when it was made (lost.claim)
    program_pid: int | None = None  # the process the command started, and the signal that ended it
    program_signal: str | None = None
    wait: float = 0.0  # seconds to wait for processes still recording once the program ended
    stop_waiting: Callable[[], bool] | None = None  # e.g. SIGTERM arrived: write what there is now
    say: Callable[[str], None] | None = None  # a line for the user while waiting
    forward_to: Path | None = None  # an outer capture's parts folder (captures nest): the parts go there too


@dataclass
class _Launches:
    count: int = 0
    grids: list[Any] = field(default_factory=list)
    args: list[Any] = field(default_factory=list)
    pairs: list[list[int]] = field(default_factory=list)
    pairs_known: bool = True  # False: a part recorded no pairs (or damaged ones): which went together is unknown


def parts_of(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.ttcap")) if folder.is_dir() else []


def merge(folder: Path, out: Path, *, base_header: Mapping[str, Any], exit_code: int | None,
          compress: bool, force: bool, run: Run | None = None) -> Merged:
    """Join the parts in `folder` into `out` (see the module docstring). `base_header` holds the fields
    the run itself sets (tool, created, argv, cwd); the rest come from the parts. Raises WriteError or
    UsageError when `out` cannot be written; the parts are then kept, and the message names their folder."""
    run = run or Run()
    result = Merged(out)
    result.lost += _folder_lost(folder, run)
    running = _wait_for_running(folder, run)
    parts = _read_parts(folder, result.warnings, result.lost)
    result.processes = len(parts)
    headers = [records_[0][1] for _, records_ in parts]
    compiles: dict[str, dict[str, Any]] = {}  # content -> record with its new id
    sources: dict[str, dict[str, Any]] = {}
    launches: dict[tuple[str, str], _Launches] = {}
    once: dict[str, dict[str, Any]] = {}  # autotune and heuristics records, by content
    device = next((h.get("device") for h in headers if h.get("device")), None)
    unended: dict[Path, str] = {}  # a part without its end -> why, when its own lines do not say
    for path, part in parts:
        ids: dict[str, str] = {}
        last: dict[tuple[str, str], dict[str, Any]] = {}
        ended, said = False, []
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
            elif kind == "lost" and isinstance(record.get("lost"), str):
                said.append(record["lost"][:1000])
            elif kind == "end":
                ended = True
        for (old_id, site), record in last.items():
            if old_id in ids:  # a launch of a compile its part never recorded cannot be told apart
                _join(launches.setdefault((ids[old_id], site), _Launches()), record)
        result.lost += said
        if not ended and not said:
            unended[path] = _why_unended(path, part[0][1], running, run)
    result.lost += unended.values()
    result.lost += _markers_without_parts(folder, {path.name for path, _ in parts})
    result.complete = not result.lost
    result.compiles, result.launches = len(compiles), sum(entry.count for entry in launches.values())
    # the run's own fields, then the first process's versions (a run that recorded no process has none)
    first = headers[0] if headers else {}
    header = {"format": FORMAT, "type": "header", "tool": "ttinspect", **dict(base_header),
              **{k: first.get(k, base_header.get(k)) for k in ("python", "triton", "torch", "triton_root")},
              "interpreter": first.get("interpreter", base_header.get("interpreter")) or False,
              "device": device, "processes": len(parts)}
    lines = [encode(header)] + [encode(s) for s in sources.values()] + [encode(c) for c in compiles.values()]
    lines += [encode({"type": "launches", "compile": compile_id, "site": site, "count": entry.count,
                      "grids": entry.grids, "args": entry.args,
                      **({"pairs": entry.pairs} if entry.pairs_known else {})})
              for (compile_id, site), entry in launches.items()]
    lines += [encode(record) for record in once.values()]
    end = {"type": "end", "compiles": result.compiles, "launches": result.launches, "exit_code": exit_code}
    lines.append(encode({**end, "lost": result.lost} if result.lost else end))
    data = "".join(lines).encode("utf-8")
    try:
        write_atomically(out, gzip.compress(data, mtime=0) if compress else data, force=force)
    except TTInspectError as error:  # the same refusal, saying where the recorded data is
        raise type(error)(f"{error}; each process's part is kept in {folder}") from None
    if run.forward_to is not None:
        told = set(unended.values())
        _forward([(path, [unended[path]] if path in unended else []) for path, _ in parts],
                 [line for line in result.lost if line not in told], header, run.forward_to, result)
    for leftover in parts_of(folder) + losses.marker_paths(folder) + [folder / losses.CLAIM]:
        if not leftover.is_file():
            continue
        leftover.unlink()
    try:
        folder.rmdir()
    except OSError:  # something else was put there: left as it is
        pass
    return result


def _folder_lost(folder: Path, run: Run) -> list[str]:
    """The parts folder gone, or another in its place: every part written before that is lost."""
    if not folder.is_dir():
        return [f"the parts folder {folder} was removed while the program ran: what its processes recorded "
                "there is lost"]
    if run.folder_token is not None and not losses.claimed(folder, run.folder_token):
        return [f"the parts folder {folder} was replaced while the program ran: what its processes recorded "
                "before is lost"]
    return []


def _wait_for_running(folder: Path, run: Run) -> set[Path]:
    """Wait (at most run.wait seconds) for the processes still recording into the folder once the program
    ended (a fork child or a subprocess left running); those still at it then."""
    running = [path for path in parts_of(folder) if losses.still_recording(path)]
    if running and run.wait > 0:
        if run.say is not None:
            run.say(f"waiting up to {run.wait:g} s for {len(running)} process(es) the program left running that "
                    "are still recording")
        running = losses.wait_for(running, run.wait, run.stop_waiting)
    return set(running)


def _why_unended(path: Path, header: Mapping[str, Any], running: set[Path], run: Run) -> str:
    """One line for a part without its end record and without a line saying why."""
    process = losses.who(header)
    code = losses.markers(path.parent).get(path.name)
    if code is not None:
        return losses.stopped_line(process, code)
    if path in running:
        return (f"{process} was still recording when the capture was joined ({run.wait:g} s after the program "
                "ended): what it does from then on is not in the capture")
    if run.program_signal and header.get("pid") == run.program_pid:
        return (f"{process} was ended by {run.program_signal} before its recording closed: what it did after its "
                "last written line is not in the capture")
    return (f"{process} ended without closing its part (killed, or crashed): what it did after its last "
            "written line is not in the capture")


def _markers_without_parts(folder: Path, read: set[str]) -> list[str]:
    """Processes that could not even write their part's header (a full disk): only their marker says so."""
    return [losses.stopped_line(f"process {name.split('-')[0]}", code)
            for name, code in sorted(losses.markers(folder).items()) if name not in read]


def _forward(parts: list[tuple[Path, list[str]]], other_lost: list[str], header: Mapping[str, Any],
             outer: Path, result: Merged) -> None:
    """Captures nest: this run's parts go into the folder of the capture recording `ttinspect capture`
    itself, under free names, each with the reason it fell short, so the outer capture holds the inner
    program's kernels and knows what they lost; losses of no part (a folder removed) go in a part of their own."""
    def free_name(pid: Any) -> Path:
        number = 1
        while os.path.lexists(outer / f"{pid}-{number}.ttcap"):
            number += 1
        return outer / f"{pid}-{number}.ttcap"

    try:
        for path, reasons in parts:
            data = path.read_bytes()
            data = data[:data.rfind(b"\n") + 1]  # a torn last line is dropped, as a reader would
            data += "".join(encode({"type": "lost", "lost": line}) for line in reasons).encode("utf-8")
            free_name(path.name.partition("-")[0]).write_bytes(data)
        if other_lost:
            own = {**header, "pid": os.getpid(), "ppid": os.getppid()}
            free_name(os.getpid()).write_bytes("".join(encode(record) for record in [
                own, *({"type": "lost", "lost": line} for line in other_lost),
                {"type": "end", "compiles": 0, "launches": 0, "exit_code": None}]).encode("utf-8"))
    except OSError as error:
        result.warnings.append(f"cannot pass this run's records on to the capture around it ({outer}): "
                               f"{error.strerror or error}")


def _read_parts(folder: Path, warnings: list[str], lost: list[str]) -> list[Part]:
    """Each part's records, in the order the processes started. A part that cannot be read is lost, said
    in one line (a part left empty by a process killed as it started recorded nothing: left out)."""
    parts = []
    for path in parts_of(folder):
        try:
            found, said = records(path)
        except CaptureError as error:
            empty = not path.exists() or path.stat().st_size == 0
            if not empty and path.name not in losses.markers(folder):  # a marker says why, later
                lost.append(f"{error}; that process's records are left out")
            continue
        warnings += [f"{message} (a process that stopped mid-write)" for message in said]
        if found[0][1].get("type") != "header":
            lost.append(f"{path}: no header; that process's records are left out")
            continue
        parts.append((path, found))
    parts.sort(key=lambda part: str(part[1][0][1].get("created", "")))
    return parts


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
    # the part's pairs, by the joined file's indices (a pair whose grid or arguments were not kept is dropped)
    pairs, grids, arg_sets = record.get("pairs"), record.get("grids") or [], record.get("args") or []
    try:
        found = [(grids[g], arg_sets[a]) for g, a in pairs if min(g, a) >= 0] if isinstance(pairs, list) else None
    except (IndexError, TypeError, ValueError):
        found = None
    if found is None:
        entry.pairs_known = False
        return
    for grid, args in found:
        if grid in entry.grids and args in entry.args:
            pair = [entry.grids.index(grid), entry.args.index(args)]
            if pair not in entry.pairs:
                entry.pairs.append(pair)

"""The capture file, format 1: what a run compiled and launched, as JSON Lines (gzip allowed), and its reader.

Line 1 is the header; every other line is one record (`source`, `compile`, `launches`, `autotune`,
`heuristics`, `end`), in any order. docs/capture.md describes every field. The file is written append-only
with a flush per line, so a run that dies leaves every line before its last whole: a torn last line is
dropped with a warning, any other damage is one `CaptureError` naming the capture's file:line. Gzip is
recognised by its magic bytes, not the name (a capture whose compression never happened is still read).
`launches` lines are re-written as counts grow: the reader keeps the last per (compile, site).
"""

from __future__ import annotations

import gzip
import json
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from ttinspect.capture.file_bytes import GZIP_MAGIC, MAX_BYTES, CaptureError, is_regular
from ttinspect.capture.record_lines import records
from ttinspect.capture.schema import check_record

FORMAT = 1
RECORD_TYPES = ("header", "source", "compile", "launches", "autotune", "heuristics", "device", "end")
__all__ = ["FORMAT", "GZIP_MAGIC", "MAX_BYTES", "RECORD_TYPES", "CaptureError", "Capture", "read", "records"]


# --- the model --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Header:
    format: int
    tool_version: str | None
    created: str | None
    argv: tuple[str, ...]
    cwd: str | None
    python: str | None
    triton: str | None
    torch: str | None
    interpreter: bool
    device: dict[str, Any] | None  # {"name", "backend", "arch", "warp_size"}; None: no GPU seen
    extra: dict[str, Any] = field(default_factory=dict)  # keys this model does not name (e.g. "note")
    as_target: str | None = None  # `capture --as`: the GPU the program ran as, on a CPU
    kernels_run: bool = True  # False: `--as` recorded the launches and ran none

    def made(self) -> str | None:
        """How the host code saw the device, when not on the GPU itself: one line for every reader of a kernel
        of this capture (None: captured on a GPU, or a capture from before this was recorded)."""
        if self.as_target:
            ran = "run in Triton's interpreter" if self.kernels_run else "recorded, not run"
            return f"captured as {self.as_target} on a CPU (the target's virtual device answered, kernels {ran})"
        if self.interpreter and not self.device:
            return ("captured under Triton's interpreter with no GPU: the host code took its CPU branches "
                    "(capture --as ARCH records what the GPU would launch)")
        return None


@dataclass(frozen=True)
class Compile:
    """One distinct compile: kernel x specialization x constexprs x options x target."""
    id: str
    name: str
    qualname: str | None
    module: str | None
    file: str | None
    def_line: int | None
    sha256: str | None
    sources: dict[str, str]  # abs path -> sha256: the kernel's file and those of the @jit functions it calls
    inductor: bool
    params: tuple[str, ...]
    signature: str  # ttinspect's --signature grammar (kernel/arguments.py)
    constexprs: dict[str, Any]
    options: dict[str, Any]
    target: dict[str, Any] | None  # {"backend", "arch", "warp_size"}; None under the interpreter without a GPU
    triton_cache_key: str | None
    triton_cache_dir: str | None
    autotuned: dict[str, Any] | None
    line: int  # where it is in the capture file
    number: int  # 1-based among the compiles of the same name, in file order: the N of `FILE:KERNEL#N`


@dataclass(frozen=True)
class Launches:
    """The launches of one compile from one site (the last line written for that pair)."""
    compile: str
    site: str
    count: int
    grids: tuple[tuple[int, ...], ...]
    args: tuple[dict[str, Any], ...]
    line: int
    # (grid index, args index): which grid went with which arguments; None in a capture written before they
    # were recorded
    pairs: tuple[tuple[int, int], ...] | None = None


@dataclass(frozen=True)
class Autotune:
    name: str
    file: str | None
    key: dict[str, Any]
    configs: tuple[dict[str, Any], ...]
    timings_ms: tuple[float, ...] | None
    best: int | None
    pruned_to: tuple[int, ...] | None
    compiles: tuple[str, ...]
    line: int
    # per config, the grid it launched with while benchmarked ([x, y, z]), None where not known; None for a
    # record without them (written before ttinspect kept them, or a tuning that benchmarked nothing)
    grids: tuple[tuple[int, int, int] | None, ...] | None = None


@dataclass(frozen=True)
class Heuristics:
    name: str
    values: dict[str, Any]
    compile: str | None
    line: int


@dataclass(frozen=True)
class Source:
    sha256: str
    path: str
    text: str | None  # None: the file was over the size limit when captured
    line: int


@dataclass(frozen=True)
class End:
    compiles: int
    launches: int
    exit_code: int | None
    lost: tuple[str, ...] = ()  # what the run lost, one description each (a part deleted, a full disk, ...)


@dataclass(frozen=True)
class Capture:
    path: Path
    header: Header
    compiles: tuple[Compile, ...]  # in file order
    launches: tuple[Launches, ...]
    autotune: tuple[Autotune, ...]
    heuristics: tuple[Heuristics, ...]
    sources: dict[str, Source]  # by sha256
    end: End | None  # None: the run stopped before recording ended (a crash, a kill)
    warnings: tuple[str, ...] = ()  # e.g. the torn last line that was dropped, what the run lost
    # indexes, made once: a capture of many records is looked up without a scan per question
    _by_id: dict[str, Compile] = field(init=False, repr=False, compare=False)
    _by_name: dict[str, tuple[Compile, ...]] = field(init=False, repr=False, compare=False)
    _launches_by_id: dict[str, tuple[Launches, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_name: dict[str, list[Compile]] = {}
        for entry in self.compiles:
            for name in dict.fromkeys((entry.name, entry.qualname)):
                if name is not None:
                    by_name.setdefault(name, []).append(entry)
        launches: dict[str, list[Launches]] = {}
        for launch in self.launches:
            launches.setdefault(launch.compile, []).append(launch)
        object.__setattr__(self, "_by_id", {entry.id: entry for entry in self.compiles})
        object.__setattr__(self, "_by_name", {name: tuple(found) for name, found in by_name.items()})
        object.__setattr__(self, "_launches_by_id", {key: tuple(found) for key, found in launches.items()})

    @property
    def complete(self) -> bool:
        """The run ended its recording and lost nothing it says it lost."""
        return self.end is not None and not self.end.lost

    def compile(self, compile_id: str) -> Compile | None:
        return self._by_id.get(compile_id)

    def named(self, name: str) -> tuple[Compile, ...]:
        """The compiles of kernel `name` (its `name` or `qualname`), in file order."""
        return self._by_name.get(name, ())

    def launches_of(self, compile_id: str) -> tuple[Launches, ...]:
        return self._launches_by_id.get(compile_id, ())

    def launch_count(self, compile_id: str) -> int:
        return sum(entry.count for entry in self.launches_of(compile_id))

    def source(self, sha256: str | None) -> Source | None:
        return self.sources.get(sha256) if sha256 else None


# --- writing ----------------------------------------------------------------------------------------------

def encode(record: dict[str, Any]) -> str:
    """One record as one line (with its newline). Anything JSON cannot hold is written as its text, so a
    strange value in a user's program never stops the recording."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=_as_text) + "\n"


def _as_text(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return str(value)


# --- reading ----------------------------------------------------------------------------------------------

def looks_like_capture(path: str | Path) -> bool:
    """True when the file is a regular file whose first line is a capture header (gzip or not); reads only
    the beginning, and never opens a FIFO or a device."""
    if not is_regular(Path(path)):
        return False
    try:
        with open(path, "rb") as stream:
            head = stream.read(2)
            stream.seek(0)
            raw: Any = gzip.GzipFile(fileobj=stream) if head == GZIP_MAGIC else stream
            first = raw.readline(64 * 1024)
    except (OSError, EOFError, zlib.error):
        return False
    return first.lstrip().startswith(b"{") and b'"type":"header"' in first.replace(b" ", b"")


def read(path: str | Path) -> Capture:
    """The capture at `path`, every field of every record checked (schema.py); CaptureError (one line,
    file:line and the field) when it cannot be read."""
    where = str(path)
    found, warnings = records(path)
    first_line, first = found[0]
    if first.get("type") != "header":
        raise CaptureError(f"{where}:{first_line}: not a ttinspect capture (the first line is not its header)")
    header = _header(first, f"{where}:{first_line}")
    compiles: list[Compile] = []
    launches: dict[tuple[str, str], Launches] = {}
    autotune: list[Autotune] = []
    heuristics: list[Heuristics] = []
    sources: dict[str, Source] = {}
    end: End | None = None
    end_line = 0
    per_name: dict[str, int] = {}
    for number, record in found[1:]:
        at = f"{where}:{number}"
        kind = _checked(record, at)
        if kind == "compile":
            per_name[record["name"]] = per_name.get(record["name"], 0) + 1
            compiles.append(_compile(record, number, per_name[record["name"]]))
        elif kind == "launches":
            entry = _launches(record, number, at)
            launches[(entry.compile, entry.site)] = entry
        elif kind == "autotune":
            autotune.append(_autotune(record, number, at))
        elif kind == "heuristics":
            heuristics.append(Heuristics(record["name"], record["values"], record.get("compile"), number))
        elif kind == "source":
            source = Source(record["sha256"], record["path"], record.get("text"), number)
            sources.setdefault(source.sha256, source)
        elif kind == "end":
            if end is not None:  # a second one would erase what the first says was lost
                raise CaptureError(f"{at}: a second end record (the first is at line {end_line}); a run ends "
                                   "once (two captures joined into one file?)")
            end_line = number
            end = End(record.get("compiles", 0), record.get("launches", 0), record.get("exit_code"),
                      tuple(record.get("lost", ())))
        elif kind == "device":  # a part's: the GPU, known only once the hooks saw it
            header = header if header.device is not None else replace(header, device=record.get("device"))
        elif kind == "header":
            raise CaptureError(f"{at}: a second header (two captures joined into one file?)")
        # another type: written by a later ttinspect in format 1; what this one does not know is left out
    _check_references(compiles, launches.values(), autotune, heuristics, where)
    if end is not None and end.lost:
        more = f" (and {len(end.lost) - 1} more loss(es))" if len(end.lost) > 1 else ""
        warnings.append(f"{where}: the run lost part of its recording: {end.lost[0]}{more}; what was kept is read")
    return Capture(Path(path), header, tuple(compiles), tuple(launches.values()), tuple(autotune),
                   tuple(heuristics), sources, end, tuple(warnings))


def _checked(record: dict[str, Any], at: str) -> Any:
    """The record's type, once every field of it is what format 1 says (schema.py)."""
    kind = record.get("type")
    if not isinstance(kind, str):
        raise CaptureError(f"{at}: a record without a \"type\"" if kind is None
                           else f"{at}: a record whose \"type\" is not a string")
    problem = check_record(record, kind)
    if problem is not None:
        raise CaptureError(f"{at}: {problem}")
    return kind


_HEADER_FIELDS = ("format", "type", "tool", "tool_version", "created", "argv", "cwd", "python", "triton", "torch",
                  "interpreter", "device", "as_target", "kernels_run")  # "triton_root" stays in `extra`


def _header(record: dict[str, Any], at: str) -> Header:
    version = record.get("format")
    if not isinstance(version, int) or isinstance(version, bool):
        raise CaptureError(f"{at}: the header has no format number; not a ttinspect capture")
    if version > FORMAT:
        raise CaptureError(f"{at}: capture format {version} was written by a later ttinspect; this one reads "
                           f"format {FORMAT} (upgrade ttinspect)")
    _checked(record, at)
    return Header(version, record.get("tool_version"), record.get("created"), tuple(record.get("argv", ())),
                  record.get("cwd"), record.get("python"), record.get("triton"), record.get("torch"),
                  record.get("interpreter", False), record.get("device"),
                  {k: v for k, v in record.items() if k not in _HEADER_FIELDS},
                  record.get("as_target"), record.get("kernels_run", True))


def _compile(record: dict[str, Any], line: int, number: int) -> Compile:
    return Compile(
        id=record["id"], name=record["name"], qualname=record.get("qualname"), module=record.get("module"),
        file=record.get("file"), def_line=record.get("def_line"), sha256=record.get("sha256"),
        sources=record.get("sources", {}), inductor=record.get("inductor", False), params=tuple(record["params"]),
        signature=record["signature"], constexprs=record.get("constexprs", {}), options=record.get("options", {}),
        target=record.get("target"), triton_cache_key=record.get("triton_cache_key"),
        triton_cache_dir=record.get("triton_cache_dir"), autotuned=record.get("autotuned"), line=line,
        number=number)


def _launches(record: Mapping[str, Any], number: int, at: str) -> Launches:
    grids, args, pairs = record.get("grids", ()), record.get("args", ()), record.get("pairs")
    for pair in pairs or ():
        if len(pair) != 2 or pair[0] >= len(grids) or pair[1] >= len(args):
            raise CaptureError(f"{at}: 'pairs' holds {pair}, not [an index of 'grids', an index of 'args'] "
                               f"(the record has {len(grids)} grids and {len(args)} argument sets)")
    return Launches(record["compile"], record["site"], record["count"], tuple(tuple(g) for g in grids),
                    tuple(args), number, tuple(tuple(p) for p in pairs) if pairs is not None else None)


def _autotune(record: dict[str, Any], line: int, at: str) -> Autotune:
    configs = record["configs"]
    best = record.get("best")
    if best is not None and not 0 <= best < len(configs):
        raise CaptureError(f"{at}: 'best' ({best}) is no index into the {len(configs)} configs")
    timings, pruned, grids = record.get("timings_ms"), record.get("pruned_to"), record.get("grids")
    if grids is not None and len(grids) != len(configs):
        raise CaptureError(f"{at}: 'grids' has {len(grids)} entries for the {len(configs)} configs (one each)")
    return Autotune(record["name"], record.get("file"), record.get("key", {}), tuple(configs),
                    tuple(timings) if timings is not None else None, best,
                    tuple(pruned) if pruned is not None else None, tuple(record.get("compiles", ())), line,
                    tuple(tuple(g) if g is not None else None for g in grids) if grids is not None else None)


def _check_references(compiles: list[Compile], launches: Iterable[Launches], autotune: list[Autotune],
                      heuristics: list[Heuristics], where: str) -> None:
    """Every compile id is unique, and every record that names one names a compile of this file."""
    ids: dict[str, int] = {}
    for entry in compiles:
        if entry.id in ids:
            raise CaptureError(f"{where}:{entry.line}: compile id {entry.id!r} also at line {ids[entry.id]}")
        ids[entry.id] = entry.line
    named = [(e.line, e.compile) for e in launches] + [(h.line, h.compile) for h in heuristics if h.compile]
    named += [(a.line, c) for a in autotune for c in a.compiles]
    for line, compile_id in named:
        if compile_id not in ids:
            raise CaptureError(f"{where}:{line}: names compile {compile_id!r}, which no compile record has")

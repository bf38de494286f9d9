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
from typing import Any, Iterable

from ttinspect.errors import UsageError

FORMAT = 1
GZIP_MAGIC = b"\x1f\x8b"
MAX_BYTES = 1 << 30  # a capture is small (no tensor data); anything larger is not one
RECORD_TYPES = ("header", "source", "compile", "launches", "autotune", "heuristics", "device", "end")


class CaptureError(UsageError):
    """A capture file that cannot be read: missing, not a capture, a later format, or damaged (file:line)."""


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
    warnings: tuple[str, ...] = ()  # e.g. the torn last line that was dropped

    @property
    def complete(self) -> bool:
        return self.end is not None

    def compile(self, compile_id: str) -> Compile | None:
        return next((c for c in self.compiles if c.id == compile_id), None)

    def named(self, name: str) -> list[Compile]:
        """The compiles of kernel `name` (its `name` or `qualname`), in file order."""
        return [c for c in self.compiles if name in (c.name, c.qualname)]

    def launches_of(self, compile_id: str) -> list[Launches]:
        return [entry for entry in self.launches if entry.compile == compile_id]

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
    """True when the file's first line is a capture header (gzip or not); reads only the beginning."""
    try:
        with open(path, "rb") as stream:
            head = stream.read(2)
            stream.seek(0)
            raw: Any = gzip.GzipFile(fileobj=stream) if head == GZIP_MAGIC else stream
            first = raw.readline(64 * 1024)
    except (OSError, EOFError, zlib.error):
        return False
    return first.lstrip().startswith(b"{") and b'"type":"header"' in first.replace(b" ", b"")


def records(path: str | Path) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """Every record of the file as (line number, dict), and the warnings (a torn last line). Raises
    CaptureError for anything else that is wrong."""
    where = str(path)
    data, warnings = _read_bytes(Path(path))
    lines = data.split(b"\n")
    torn = lines.pop() if lines else b""  # after the last newline: empty, or a line the run never finished
    found: list[tuple[int, dict[str, Any]]] = []
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        found.append((number, _decode(raw, f"{where}:{number}")))
    if torn.strip():
        try:
            found.append((len(lines) + 1, _decode(torn, "")))
        except CaptureError:
            warnings.append(f"{where}:{len(lines) + 1}: the last line is incomplete (the run stopped while "
                            "writing it); it was left out")
    if not found:
        raise CaptureError(f"{where}: empty; a capture starts with its header line")
    return found, warnings


def read(path: str | Path) -> Capture:
    """The capture at `path`, checked; CaptureError (one line, file:line) when it cannot be read."""
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
    per_name: dict[str, int] = {}
    for number, record in found[1:]:
        at = f"{where}:{number}"
        kind = record.get("type")
        if kind == "compile":
            per_name[_get(record, "name", str, at)] = per_name.get(record["name"], 0) + 1
            compiles.append(_compile(record, number, per_name[record["name"]], at))
        elif kind == "launches":
            entry = _launches(record, number, at)
            launches[(entry.compile, entry.site)] = entry
        elif kind == "autotune":
            autotune.append(_autotune(record, number, at))
        elif kind == "heuristics":
            heuristics.append(Heuristics(_get(record, "name", str, at), _get(record, "values", dict, at),
                                         _get(record, "compile", (str, type(None)), at, None), number))
        elif kind == "source":
            source = Source(_get(record, "sha256", str, at), _get(record, "path", str, at),
                            _get(record, "text", (str, type(None)), at, None), number)
            sources.setdefault(source.sha256, source)
        elif kind == "end":
            end = End(_get(record, "compiles", int, at, 0), _get(record, "launches", int, at, 0),
                      _get(record, "exit_code", (int, type(None)), at, None))
        elif kind == "device":  # a part's: the GPU, known only once the hooks saw it
            device = _get(record, "device", _DICT_OR_NONE, at, None)
            header = header if header.device is not None else replace(header, device=device)
        elif kind == "header":
            raise CaptureError(f"{at}: a second header (two captures joined into one file?)")
        elif not isinstance(kind, str):
            raise CaptureError(f"{at}: a record without a \"type\"")
        # another type: written by a later ttinspect in format 1; what this one does not know is left out
    _check_references(compiles, launches.values(), autotune, heuristics, where)
    return Capture(Path(path), header, tuple(compiles), tuple(launches.values()), tuple(autotune),
                   tuple(heuristics), sources, end, tuple(warnings))


def _read_bytes(path: Path) -> tuple[bytes, list[str]]:
    warnings: list[str] = []
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise CaptureError(f"{path}: no such capture file") from None
    except IsADirectoryError:
        raise CaptureError(f"{path}: a directory, not a capture file") from None
    except OSError as error:
        raise CaptureError(f"{path}: cannot read it: {error.strerror or error}") from None
    if len(data) > MAX_BYTES:
        raise CaptureError(f"{path}: over {MAX_BYTES >> 20} MiB, too large for a capture")
    if data[:2] != GZIP_MAGIC:
        return data, warnings
    unpacker = zlib.decompressobj(wbits=31)  # gzip's framing
    try:
        out = unpacker.decompress(data, MAX_BYTES + 1)
    except zlib.error as error:
        raise CaptureError(f"{path}: damaged gzip data ({error})") from None
    if len(out) > MAX_BYTES:
        raise CaptureError(f"{path}: over {MAX_BYTES >> 20} MiB once uncompressed, too large for a capture")
    if not unpacker.eof:
        warnings.append(f"{path}: the gzip stream ends early (the file was cut short); what it holds was read")
    return out, warnings


def _decode(raw: bytes, at: str) -> dict[str, Any]:
    try:
        value = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise CaptureError(f"{at}: not UTF-8 text (byte {error.start + 1} of the line)") from None
    except ValueError as error:
        raise CaptureError(f"{at}: damaged line, not JSON ({error})") from None
    if not isinstance(value, dict):
        raise CaptureError(f"{at}: damaged line, a JSON {type(value).__name__} where a record (object) belongs")
    return value


_MISSING = object()


def _get(record: dict[str, Any], key: str, types: type | tuple[type, ...], at: str, default: Any = _MISSING) -> Any:
    """record[key], checked against `types` (bool is not an int here); `default` when absent, if given."""
    if key not in record:
        if default is _MISSING:
            raise CaptureError(f"{at}: the {record.get('type', 'record')} record has no {key!r}")
        return default
    value = record[key]
    allowed = types if isinstance(types, tuple) else (types,)
    if isinstance(value, bool) and bool not in allowed or not isinstance(value, allowed):
        names = " or ".join("null" if t is type(None) else t.__name__ for t in allowed)
        raise CaptureError(f"{at}: {key!r} of the {record.get('type', 'record')} record is {value!r}; "
                           f"expected {names}")
    return value


_TEXT_OR_NONE = (str, type(None))
_DICT_OR_NONE = (dict, type(None))


def _header(record: dict[str, Any], at: str) -> Header:
    version = record.get("format")
    if not isinstance(version, int) or isinstance(version, bool):
        raise CaptureError(f"{at}: the header has no format number; not a ttinspect capture")
    if version > FORMAT:
        raise CaptureError(f"{at}: capture format {version} was written by a later ttinspect; this one reads "
                           f"format {FORMAT} (upgrade ttinspect)")
    named = ("format", "type", "tool", "tool_version", "created", "argv", "cwd", "python", "triton", "torch",
             "interpreter", "device")
    argv = _get(record, "argv", list, at, [])
    return Header(version, _get(record, "tool_version", _TEXT_OR_NONE, at, None),
                  _get(record, "created", _TEXT_OR_NONE, at, None), tuple(str(a) for a in argv),
                  _get(record, "cwd", _TEXT_OR_NONE, at, None), _get(record, "python", _TEXT_OR_NONE, at, None),
                  _get(record, "triton", _TEXT_OR_NONE, at, None), _get(record, "torch", _TEXT_OR_NONE, at, None),
                  _get(record, "interpreter", bool, at, False), _get(record, "device", _DICT_OR_NONE, at, None),
                  {k: v for k, v in record.items() if k not in named})


def _compile(record: dict[str, Any], line: int, number: int, at: str) -> Compile:
    params = _get(record, "params", list, at)
    if not all(isinstance(p, str) for p in params):
        raise CaptureError(f"{at}: 'params' of the compile record must be parameter names")
    return Compile(
        id=_get(record, "id", str, at), name=record["name"], qualname=_get(record, "qualname", _TEXT_OR_NONE, at, None),
        module=_get(record, "module", _TEXT_OR_NONE, at, None), file=_get(record, "file", _TEXT_OR_NONE, at, None),
        def_line=_get(record, "def_line", (int, type(None)), at, None),
        sha256=_get(record, "sha256", _TEXT_OR_NONE, at, None), sources=_get(record, "sources", dict, at, {}),
        inductor=_get(record, "inductor", bool, at, False), params=tuple(params),
        signature=_get(record, "signature", str, at), constexprs=_get(record, "constexprs", dict, at, {}),
        options=_get(record, "options", dict, at, {}), target=_get(record, "target", _DICT_OR_NONE, at, None),
        triton_cache_key=_get(record, "triton_cache_key", _TEXT_OR_NONE, at, None),
        triton_cache_dir=_get(record, "triton_cache_dir", _TEXT_OR_NONE, at, None),
        autotuned=_get(record, "autotuned", _DICT_OR_NONE, at, None), line=line, number=number)


def _launches(record: dict[str, Any], line: int, at: str) -> Launches:
    grids = _get(record, "grids", list, at, [])
    if not all(isinstance(g, list) and all(isinstance(n, int) for n in g) for g in grids):
        raise CaptureError(f"{at}: 'grids' of the launches record must be lists of integers")
    args = _get(record, "args", list, at, [])
    if not all(isinstance(a, dict) for a in args):
        raise CaptureError(f"{at}: 'args' of the launches record must be objects")
    return Launches(_get(record, "compile", str, at), _get(record, "site", str, at), _get(record, "count", int, at),
                    tuple(tuple(g) for g in grids), tuple(args), line)


def _autotune(record: dict[str, Any], line: int, at: str) -> Autotune:
    configs = _get(record, "configs", list, at)
    timings = _get(record, "timings_ms", (list, type(None)), at, None)
    pruned = _get(record, "pruned_to", (list, type(None)), at, None)
    best = _get(record, "best", (int, type(None)), at, None)
    if best is not None and not 0 <= best < len(configs):
        raise CaptureError(f"{at}: 'best' ({best}) is no index into the {len(configs)} configs")
    if timings is not None and not all(isinstance(t, (int, float)) or t is None for t in timings):
        raise CaptureError(f"{at}: 'timings_ms' of the autotune record must be numbers")
    return Autotune(_get(record, "name", str, at), _get(record, "file", _TEXT_OR_NONE, at, None),
                    _get(record, "key", dict, at, {}), tuple(configs),
                    tuple(timings) if timings is not None else None, best,
                    tuple(pruned) if pruned is not None else None,
                    tuple(_get(record, "compiles", list, at, [])), line)


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

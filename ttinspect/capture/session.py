"""The recorder inside a captured process: what the hooks (hooks.py) call on every compile and launch.

One Session per process writes one *part*: a complete format-1 capture of its own (`<pid>-<n>.ttcap` in the
run's parts folder), appended line by line with a flush after each, fsync'd every FSYNC_EVERY lines and at
the end; merge.py joins the parts of a run into the user's file. So a process that dies leaves every line it
wrote. A fork child continues in a part of its own (the compile records it inherited are written again, so
its launches name compiles of its own file).

The session never raises into the user's program: a recording failure is one warning line on stderr, then
recording stops and the program goes on. It is thread-safe (one lock) and bounded (MAX_* below). The
per-launch path is a dict lookup, a counter and a comparison; a launch summary is taken only for the first
SUMMARY_LAUNCHES launches of a site, a new grid's, then at the powers of two, with which grid it went with.
"""

from __future__ import annotations

import atexit
import errno
import hashlib
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Mapping

from ttinspect.capture import lost, process
from ttinspect.capture.format import FORMAT, encode
from ttinspect.files.source_files import read_regular

MAX_COMPILES = 20_000  # distinct compiles of one process
MAX_SITES = 20_000  # distinct (compile, launch site) pairs
MAX_RECORDS = 20_000  # autotune and heuristics records each
MAX_SOURCE_TEXT = 2 * 1024 * 1024  # a source file larger than this is recorded by sha256 only
MAX_GRIDS, MAX_ARGS = 64, 64  # distinct grids / argument summaries kept per launch site (a test suite's shapes)
SUMMARY_LAUNCHES = 64
FSYNC_EVERY = 256
FLUSH_SECONDS = 2.0

Summary = Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None


class _Site:
    """The launches of one compile from one site, as recorded so far."""
    __slots__ = ("count", "grids", "args", "pairs", "written", "write_at")

    def __init__(self) -> None:
        self.count = 0
        self.grids: list[tuple[int, ...]] = []
        self.args: list[Mapping[str, Any]] = []
        self.pairs: list[list[int]] = []  # [grid index, args index]: which went together (predict per shape)
        self.written = 0  # the count last written
        self.write_at = 1  # the count at which the line is written again (doubles)


class Session:
    """Records one process's compiles and launches into `part` (see the module docstring)."""

    def __init__(self, part: Path, header: Mapping[str, Any]):
        self.part = part
        self._header = dict(header)
        self._lock = threading.Lock()
        self._stream: Any = None
        self._stopped = False  # closed, or stopped by a failure
        self._lines = 0
        self._size = 0  # bytes of whole lines written: a failed write is cut back to it
        self._compiles: dict[str, str] = {}  # the record's text without its id -> id
        self._compile_records: list[dict[str, Any]] = []
        self._sites: dict[tuple[str, str], _Site] = {}
        self._sources: set[str] = set()
        self._source_files: dict[tuple[str, int, int], str | None] = {}  # (path, mtime, size) -> sha256
        self._counts = {"autotune": 0, "heuristics": 0}
        self._launches = 0
        self._next_flush = time.monotonic() + FLUSH_SECONDS
        self._limits_said: set[str] = set()
        self._guard(self._open, part)

    # --- what the hooks call ----------------------------------------------------------------------------

    def add_source(self, path: str | os.PathLike) -> str | None:
        """Record a source file once per content; its sha256, or None when it cannot be read."""
        return self._guard(self._add_source, os.path.abspath(path))

    def add_compile(self, record: Mapping[str, Any]) -> str | None:
        """Record one compile (the spec's fields, without "type" and "id"); its id ("k1", ...), the same id
        for the same content. None when recording stopped or the limit was reached."""
        return self._guard(self._add_compile, record)

    def add_launch(self, compile_id: str, site: str, grid: tuple[int, ...] | None, args: Summary = None,
                   count: int = 1) -> None:
        """Count `count` launches (the hooks count in the program and report at powers of two and every
        1024: capture/counting.py). `args` is the arguments' summary ({name: {"dtype", "shape", "strides"} or
        a scalar}) or a function making it, called only while a summary is wanted (never tensor data)."""
        launches = count
        if self._stopped:
            return
        try:
            with self._lock:
                site_entry = self._sites.get((compile_id, site))
                if site_entry is None:
                    site_entry = self._new_site(compile_id, site)
                    if site_entry is None:
                        return
                count = site_entry.count = site_entry.count + launches
                self._launches += launches
                grid = grid if grid is None or type(grid) is tuple else tuple(grid)
                new_grid = grid is not None and len(site_entry.grids) < MAX_GRIDS and grid not in site_entry.grids
                if new_grid and grid is not None:  # its summary is taken too, whatever the count
                    site_entry.grids.append(grid)
                if args is not None and (new_grid or count <= SUMMARY_LAUNCHES or not count & (count - 1)):
                    self._keep_summary(site_entry, args, grid)
                if count >= site_entry.write_at:
                    site_entry.write_at = count * 2
                    self._write_site(compile_id, site, site_entry)
                if time.monotonic() >= self._next_flush:  # calls are rare now: the clock on each
                    self._write_sites()
        except Exception as error:  # never into the user's program
            self._fail(error)

    @staticmethod
    def _keep_summary(site_entry: _Site, args: Summary, grid: tuple[int, ...] | None) -> None:
        try:
            summary = args() if callable(args) else args
        except Exception:  # an argument that cannot be described: this launch goes without a summary
            return
        if summary is not None and summary not in site_entry.args and len(site_entry.args) < MAX_ARGS:
            site_entry.args.append(summary)
        if summary is not None and grid in site_entry.grids and summary in site_entry.args:
            pair = [site_entry.grids.index(grid), site_entry.args.index(summary)]
            if pair not in site_entry.pairs:  # at most MAX_GRIDS × MAX_ARGS
                site_entry.pairs.append(pair)

    def add_autotune(self, record: Mapping[str, Any]) -> None:
        self._guard(self._add_counted, "autotune", record)

    def add_heuristics(self, record: Mapping[str, Any]) -> None:
        self._guard(self._add_counted, "heuristics", record)

    def set_device(self, device: Mapping[str, Any] | None) -> None:
        """The GPU the process runs on ({"name", "backend", "arch", "warp_size"}), once the hooks know it: a
        `device` line that the merge (and the reader) folds into the header."""
        self._guard(self._add_device, device)

    def add_lost(self, line: str) -> None:
        """Record that something of the run is not in the capture (one line saying what and why): the join
        lists it in the end record's `lost` field (capture/lost.py)."""
        self._guard(self._write, {"type": "lost", "lost": str(line)})

    def close(self, exit_code: int | None = None) -> None:
        """Write what is pending and the `end` record; idempotent."""
        with self._lock:
            if self._stopped:
                return
            try:
                self._write_sites()
                self._write({"type": "end", "compiles": len(self._compile_records), "launches": self._launches,
                             "exit_code": exit_code})
                os.fsync(self._stream.fileno())
            except Exception as error:
                self._fail_locked(error)
            self._stopped = True
            self._close_stream()

    @property
    def stopped(self) -> bool:
        return self._stopped

    def idle(self, wait: float) -> bool:
        """Whether no write holds the session's lock within `wait` seconds."""
        if self._lock.acquire(timeout=wait):
            self._lock.release()
            return True
        return False

    # --- inside the lock --------------------------------------------------------------------------------

    def _open(self, part: Path) -> None:
        self._stream = open(part, "xb", buffering=0)  # unbuffered: each line is one write()
        lost.hold(self._stream)  # the join knows this process records while it holds the part (lost.py)
        self._write({"format": FORMAT, "type": "header", **self._header, "pid": os.getpid(),
                     "ppid": os.getppid()})

    def _add_source(self, path: str) -> str | None:
        try:
            stat = os.stat(path)
        except OSError:
            return None
        key = (path, stat.st_mtime_ns, stat.st_size)
        if key in self._source_files:
            return self._source_files[key]
        data = read_regular(path)
        sha = hashlib.sha256(data).hexdigest() if data is not None else None
        self._source_files[key] = sha
        if data is not None and sha not in self._sources:
            self._sources.add(sha)  # type: ignore[arg-type]
            try:
                text = data.decode("utf-8") if len(data) <= MAX_SOURCE_TEXT else None
            except UnicodeDecodeError:
                text = None
            self._write({"type": "source", "sha256": sha, "path": path, "text": text})
        return sha

    def _add_compile(self, record: Mapping[str, Any]) -> str | None:
        content = {k: v for k, v in record.items() if k not in ("type", "id")}
        key = encode(content)
        known = self._compiles.get(key)
        if known is not None:
            return known
        if len(self._compile_records) >= MAX_COMPILES:
            self._limit("compiles", MAX_COMPILES)
            return None
        compile_id = f"k{len(self._compile_records) + 1}"
        full = {"type": "compile", "id": compile_id, **content}
        self._write(full)
        self._compiles[key] = compile_id
        self._compile_records.append(full)
        return compile_id

    def _add_counted(self, kind: str, record: Mapping[str, Any]) -> None:
        if self._counts[kind] >= MAX_RECORDS:
            self._limit(kind, MAX_RECORDS)
            return
        self._counts[kind] += 1
        self._write({"type": kind, **{k: v for k, v in record.items() if k != "type"}})

    def _add_device(self, device: Mapping[str, Any] | None) -> None:
        if device and self._header.get("device") != dict(device):
            self._header["device"] = dict(device)
            self._write({"type": "device", "device": dict(device)})

    def _new_site(self, compile_id: str, site: str) -> _Site | None:
        if len(self._sites) >= MAX_SITES:
            self._limit("launch sites", MAX_SITES)
            return None
        entry = self._sites[(compile_id, site)] = _Site()
        return entry

    def _write_site(self, compile_id: str, site: str, entry: _Site) -> None:
        self._write({"type": "launches", "compile": compile_id, "site": site, "count": entry.count,
                     "grids": [list(g) for g in entry.grids], "args": list(entry.args),
                     "pairs": [list(p) for p in entry.pairs]})
        entry.written = entry.count

    def _write_sites(self) -> None:
        for (compile_id, site), entry in self._sites.items():
            if entry.count != entry.written:
                self._write_site(compile_id, site, entry)
        self._next_flush = time.monotonic() + FLUSH_SECONDS

    def _write(self, record: Mapping[str, Any]) -> None:
        data = encode(dict(record)).encode("utf-8")
        try:
            written = self._stream.write(data)
            if written is not None and written < len(data):  # a short write: the disk filled mid-line
                raise OSError(errno.ENOSPC, f"only {written} of {len(data)} bytes written")
        except OSError:
            self._cut_torn_line()
            raise
        self._size += len(data)
        self._lines += 1
        if not self._lines % FSYNC_EVERY:
            os.fsync(self._stream.fileno())

    def _limit(self, what: str, limit: int) -> None:
        if what not in self._limits_said:
            self._limits_said.add(what)
            _say(f"capture limit reached: more than {limit} {what} in process {os.getpid()}; "
                 "the rest are not recorded")

    # --- failures and forks -----------------------------------------------------------------------------

    def _guard(self, method: Callable[..., Any], *args: Any) -> Any:
        if self._stopped:
            return None
        try:
            with self._lock:
                if self._stopped:
                    return None
                return method(*args)
        except Exception as error:  # never into the user's program
            self._fail(error)
            return None

    def _fail(self, error: BaseException) -> None:
        with self._lock:
            self._fail_locked(error)

    def _fail_locked(self, error: BaseException) -> None:
        if not self._stopped:
            self._stopped = True
            _say(f"capture stopped recording in process {os.getpid()} ({type(error).__name__}: {error}); "
                 "the program goes on")
            # why, for the join: a line in the part, else a marker beside it (lost.py)
            lost.say_why_stopped(self._write, self.part, {**self._header, "pid": os.getpid()}, error)
            self._close_stream()

    def _cut_torn_line(self) -> None:
        """Give back what a failed write left of its line, so the part ends on a whole line (and the disk gets
        those bytes back for the line saying why recording stopped)."""
        try:
            os.ftruncate(self._stream.fileno(), self._size)
            os.lseek(self._stream.fileno(), self._size, os.SEEK_SET)  # the next line follows the last whole one
        except (OSError, AttributeError, ValueError):  # not truncatable: the reader drops a torn last line
            pass

    def _close_stream(self) -> None:
        try:
            if self._stream is not None:
                self._stream.close()
        except OSError:
            pass

    def continue_in_child(self, part: Path) -> None:
        """After a fork, in the child: a part of its own, starting with the compiles it inherited (their
        ids kept, so the hooks' own tables stay right) and no launches."""
        self._lock = threading.Lock()  # another thread may have held the parent's at the fork
        if self._stopped:
            return
        self._close_stream()
        self._stream, self._lines, self._launches, self._size = None, 0, 0, 0
        self._sites = {}
        self._header.update(parent_pid=os.getppid(), created=process.now())
        self.part = part
        try:
            self._open(part)
            if self._header.get("device"):
                self._write({"type": "device", "device": self._header["device"]})
            for record in self._compile_records:
                self._write(record)
        except Exception as error:
            self._fail_locked(error)


def _say(message: str) -> None:
    try:
        print(f"ttinspect: warning: {message}", file=sys.stderr, flush=True)
    except Exception:  # a closed stderr: nothing more to do
        pass


# --- the process's session --------------------------------------------------------------------------------

_current: Session | None = None
_parts_folder: Path | None = None
_process_hooks_installed = False


def current() -> Session | None:
    """The session recording this process, or None."""
    return _current


def new_part(folder: Path) -> Path:
    """A fresh part name in `folder` for this process (a pid reused by exec gets the next number)."""
    number = 1
    while (folder / f"{os.getpid()}-{number}.ttcap").exists():
        number += 1
    return folder / f"{os.getpid()}-{number}.ttcap"


def start(folder: Path, header: Mapping[str, Any]) -> Session:
    """Record this process into a new part in `folder` until stop() or the process's exit."""
    global _current, _parts_folder, _process_hooks_installed
    if _current is not None and not _current.stopped:
        raise RuntimeError("a capture is already recording this process")
    _parts_folder = folder
    _current = Session(new_part(folder), header)
    if not _process_hooks_installed:  # once per process, whichever session is current when they run
        atexit.register(_at_exit)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=_after_fork)
        _process_hooks_installed = True
    return _current


def stop(exit_code: int | None = None) -> Session | None:
    """Close this process's session (if any) and forget it; returns it."""
    global _current
    session, _current = _current, None
    if session is not None:
        session.close(exit_code)
    return session


def _at_exit() -> None:
    if _current is not None:
        _current.close()


def _after_fork() -> None:
    if _current is None or _parts_folder is None:
        return
    _current.continue_in_child(new_part(_parts_folder))
    # A multiprocessing child ends with os._exit (no atexit): close the part in its own last step.
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        try:
            util.register_after_fork(_current, lambda session: util.Finalize(None, session.close, exitpriority=-100))
        except Exception:  # multiprocessing changed: the child's last counts may be lower, nothing worse
            pass

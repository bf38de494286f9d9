"""What a run lost, told apart from what it recorded: the join (merge.py) must never write a whole capture over
missing records, so every way a part can fall short leaves a trace the join reads.

- A recording process holds an exclusive `flock` on its part while it writes it (the kernel drops it when
  the process ends, however it ends; a fork child closes its copy and locks a part of its own). The join asks
  for the lock: refused means the process is still recording (a fork child or a subprocess that outlives the
  program), and the join waits for it, for a while, then records what it cannot wait for.
- A process whose writes fail (a full disk) stops recording and says why: a `lost` record in its own part,
  or, when even that line cannot be written, an empty *marker* beside it whose name carries the error
  (`<part>.ENOSPC.stopped`: creating an empty file needs no data block, so it works on a full disk).
- A part without its `end`, a marker, a lost record, a parts folder removed or replaced: each is one line of
  the end record's `lost` field (docs/capture.md), and the command says it.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import time
from pathlib import Path
from typing import Any, Callable, Mapping

try:
    import fcntl
except ImportError:  # no flock (Windows): liveness is not known, a part without end is said as cut short
    fcntl = None  # type: ignore[assignment]

CLAIM = "run.id"  # in a parts folder: the run's token, so a folder removed and made again is told apart
MARKER_SUFFIX = ".stopped"
_MARKER = re.compile(r"^(?P<part>[0-9]+-[0-9]+\.ttcap)\.(?P<code>[A-Za-z][A-Za-z0-9_]{0,40})\.stopped$")
POLL_SECONDS = 0.05


def claim(folder: Path) -> str | None:
    """Mark a new parts folder as this run's (an inode number is reused at once by a folder made again);
    the token, or None when it cannot be written (then the folder is not checked)."""
    token = secrets.token_hex(8)
    try:
        (folder / CLAIM).write_text(token)
    except OSError:
        return None
    return token


def claimed(folder: Path, token: str) -> bool:
    try:
        return (folder / CLAIM).read_text(errors="replace")[:64] == token
    except OSError:
        return False


def hold(stream: Any) -> None:
    """Lock the part `stream` writes for as long as this process keeps it open (see the module docstring)."""
    if fcntl is not None:
        try:
            fcntl.flock(stream.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # a filesystem without locks: the join cannot tell this process is alive
            pass


def still_recording(part: Path) -> bool:
    """Whether a live process holds `part` open for writing (its lock)."""
    if fcntl is None:
        return False
    try:
        handle = os.open(part, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:  # a filesystem without locks
        return False
    finally:
        os.close(handle)
    return False


def wait_for(parts: list[Path], seconds: float, stop: Callable[[], bool] | None = None) -> list[Path]:
    """Wait until no process records into `parts`, at most `seconds` (or until `stop()` says so); the parts
    still being written then."""
    deadline = time.monotonic() + max(seconds, 0.0)
    running = [part for part in parts if still_recording(part)]
    while running and time.monotonic() < deadline and not (stop is not None and stop()):
        time.sleep(POLL_SECONDS)
        running = [part for part in running if still_recording(part)]
    return running


def error_code(error: BaseException) -> str:
    """A short name for why recording stopped: the errno's name (ENOSPC), else the exception's type."""
    number = getattr(error, "errno", None)
    if isinstance(number, int) and number in errno.errorcode:
        return errno.errorcode[number]
    return re.sub(r"[^A-Za-z0-9_]", "", type(error).__name__)[:40] or "Error"


def mark_stopped(part: Path, error: BaseException) -> None:
    """Leave the empty marker that says this part stopped because `error` (best effort: never raises)."""
    try:
        os.close(os.open(part.parent / f"{part.name}.{error_code(error)}{MARKER_SUFFIX}",
                         os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError:
        pass


def say_why_stopped(write: Callable[[Mapping[str, Any]], None], part: Path, header: Mapping[str, Any],
                    error: BaseException) -> None:
    """Leave in the part why its process stops recording: a `lost` line written with `write`, or when even
    that cannot be written (a full disk), an empty marker beside the part. Never raises."""
    try:
        write({"type": "lost", "lost": stopped_line(who(header), error_code(error))})
    except Exception:
        mark_stopped(part, error)


def markers(folder: Path) -> dict[str, str]:
    """The markers in `folder`: part name -> error code (names of any other form are not markers)."""
    found: dict[str, str] = {}
    try:
        names = os.listdir(folder)
    except OSError:
        return found
    for name in names:
        match = _MARKER.match(name)
        if match:
            found.setdefault(match["part"], match["code"])
    return found


def marker_paths(folder: Path) -> list[Path]:
    return [folder / name for name in (os.listdir(folder) if folder.is_dir() else []) if _MARKER.match(name)]


def stopped_line(process: str, code: str) -> str:
    """One line for a process that stopped recording because a write of its part failed with `code`."""
    number = getattr(errno, code, None)
    why = f"{code}: {os.strerror(number)}" if isinstance(number, int) else code
    return (f"{process} stopped recording when a write to its part failed ({why}); what it did after that "
            "is not in the capture")


def who(header: Mapping[str, Any]) -> str:
    """`process 123 (python train.py)`: a part's process, by its header, for a lost line."""
    argv = header.get("argv")
    command = " ".join(str(a) for a in argv)[:80] if isinstance(argv, list) and argv else "?"
    return f"process {header.get('pid', '?')} ({command})"

"""A lock beside a file the user keeps (`ttinspect.snapshot.json.lock`), as git's `index.lock`: held while a
run re-reads the file, merges its own part into it and writes it, so that two runs at once both land
instead of the second silently replacing the first.

The lock is a file made with O_EXCL (exactly one maker wins, on every local file system) that names its
holder: `PID HOST TOKEN`. A lock whose holder is a process of this host that no longer runs (killed, the
machine rebooted) is stale and taken over; one held by a live process is waited for, then refused in one
line naming the process. What is at the lock's path and is not a lock of ours (a link, a folder, a file
with other content) is the user's: refused, never removed.
"""

from __future__ import annotations

import os
import secrets
import socket
import stat
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ttinspect.errors import UsageError
from ttinspect.files.outputs import WriteError

_EMPTY_GRACE_S = 5.0  # an empty lock this old lost its maker between open() and write(): stale


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


@contextmanager
def held(path: Path, *, wait_s: float = 60.0) -> Iterator[None]:
    """Hold `<path>.lock` for the block; released in every case (an exception, Ctrl-C). Waits up to `wait_s`
    for a live holder, then WriteError naming it (exit 1)."""
    lock = lock_path(path)
    mine = f"{os.getpid()} {socket.gethostname()} {secrets.token_hex(8)}\n".encode()
    deadline = time.monotonic() + wait_s
    while not _made(lock, mine):
        seen = _read_lock(lock)
        if seen is None:  # gone meanwhile: try again at once
            continue
        if _stale(lock, seen):
            _take_over(lock, seen)
            continue
        if time.monotonic() >= deadline:
            raise WriteError(f"{lock} is held by {_holder(seen)}: another ttinspect is writing {path.name}; if none "
                             "runs, remove the lock")
        time.sleep(0.05)
    try:
        yield
    finally:
        if _read_lock(lock) == mine:  # never remove a lock another run took over meanwhile
            _unlink(lock)


def _made(lock: Path, content: bytes) -> bool:
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except FileExistsError:
        return False
    except OSError as error:  # a read-only folder, no space, a name too long
        raise WriteError(f"cannot lock {lock}: {error.strerror or error}") from None
    try:
        os.write(fd, content)
    finally:
        os.close(fd)
    return True


def _read_lock(lock: Path) -> bytes | None:
    """The lock's content; None when it is gone. Anything but a regular file is the user's: refused."""
    try:
        mode = os.lstat(lock).st_mode
    except FileNotFoundError:
        return None
    except OSError as error:
        raise WriteError(f"cannot read the lock {lock}: {error.strerror or error}") from None
    if not stat.S_ISREG(mode):
        raise UsageError(f"{lock} is in the way and is not a lock ttinspect made (not a regular file); remove it")
    try:
        fd = os.open(lock, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError as error:
        raise WriteError(f"cannot read the lock {lock}: {error.strerror or error}") from None
    try:
        return os.read(fd, 4096)
    finally:
        os.close(fd)


def _fields(seen: bytes) -> tuple[int, str] | None:
    parts = seen.decode("utf-8", "replace").split()
    if len(parts) != 3 or not parts[0].isdigit() or len(parts[0]) > 10:
        return None
    return int(parts[0]), parts[1]


def _holder(seen: bytes) -> str:
    fields = _fields(seen)
    return f"process {fields[0]} on {fields[1]}" if fields else "a run that is still starting"


def _stale(lock: Path, seen: bytes) -> bool:
    if not seen:
        try:
            return time.time() - os.lstat(lock).st_mtime > _EMPTY_GRACE_S
        except OSError:
            return False
    fields = _fields(seen)
    if fields is None:
        raise UsageError(f"{lock} is in the way and is not a lock ttinspect made (it holds other text); remove it "
                         "if it is not yours")
    pid, host = fields
    if host != socket.gethostname():
        return False  # another machine's process (a shared folder): it cannot be asked, so it is waited for
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False  # alive, another user's
    return False


def _take_over(lock: Path, seen: bytes) -> None:
    """Remove a stale lock without ever removing a live one: moved aside first, checked, and put back when
    another run made a fresh lock between our read and the move."""
    aside = lock.with_name(f"{lock.name}.stale-{os.getpid()}")
    try:
        os.rename(lock, aside)
    except FileNotFoundError:
        return
    except OSError as error:
        raise WriteError(f"cannot remove the stale lock {lock}: {error.strerror or error}") from None
    try:
        if _read_lock(aside) != seen:
            try:
                os.link(aside, lock)
            except FileExistsError:
                pass
    finally:
        _unlink(aside)


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass

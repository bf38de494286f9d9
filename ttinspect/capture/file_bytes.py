"""The bytes of a capture file, read within bounds, whoever made it.

Only a regular file is read (links followed): a FIFO named `run.ttcap` would block a read forever, a link to
`/dev/zero` would never end, so each is refused from its `stat` before it is opened, and the file is opened
non-blocking and checked again in case it was swapped meanwhile. What is read is bounded (MAX_BYTES), and so
is what a gzip inflates to — a small file that inflates without end is refused at the bound, not held in
memory. Gzip is told by its magic bytes, not the name; every member of a multi-member gzip (`cat a.gz b.gz`)
is read, and bytes after the last member that are not one are refused (gzip's own "trailing garbage").
"""

from __future__ import annotations

import os
import stat
import zlib
from pathlib import Path

from ttinspect.errors import UsageError

GZIP_MAGIC = b"\x1f\x8b"
# A capture holds no tensor data: compiles, launch counts and source texts (up to 2 MB a file, once each).
# Anything larger, read or inflated, is not one.
MAX_BYTES = 256 << 20
_CHUNK = 1 << 20


class CaptureError(UsageError):
    """A capture file that cannot be read: missing, not a capture, a later format, or damaged (file:line)."""


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    for test, words in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                        (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return None if stat.S_ISREG(mode) else "not a regular file"


def is_regular(path: Path) -> bool:
    """Whether `path` is a regular file (links followed), without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _refuse_special(path: Path, mode: int) -> None:
    kind = _kind(mode)
    if kind is not None:
        raise CaptureError(f"{path}: {kind}, not a capture file; a capture is a regular file (not opened)")


def raw_bytes(path: Path) -> bytes:
    """The file's bytes, at most MAX_BYTES; CaptureError (one line) for anything but a regular file."""
    try:
        _refuse_special(path, os.stat(path).st_mode)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except (FileNotFoundError, NotADirectoryError):
        raise CaptureError(f"{path}: no such capture file") from None
    except OSError as error:
        raise CaptureError(f"{path}: cannot read it: {error.strerror or error}") from None
    except ValueError:  # a NUL in the path
        raise CaptureError(f"{path!r}: not a file name") from None
    try:
        _refuse_special(path, os.fstat(fd).st_mode)
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_BYTES:
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise CaptureError(f"{path}: cannot read it: {error.strerror or error}") from None
    finally:
        os.close(fd)
    if size > MAX_BYTES:
        raise CaptureError(f"{path}: over {MAX_BYTES >> 20} MiB, too large for a capture")
    return b"".join(chunks)


def inflate(data: bytes, path: Path) -> tuple[bytes, list[str]]:
    """Every gzip member of `data`, inflated, at most MAX_BYTES in all; a stream cut short is a warning (what
    it held is kept), damaged data or bytes after the last member that are not another one an error."""
    out = bytearray()
    warnings: list[str] = []
    rest = data
    members = 0
    while rest:
        if rest[:2] != GZIP_MAGIC:
            raise CaptureError(f"{path}: {len(rest)} byte(s) after gzip member {members} that are not gzip data "
                               "(trailing garbage); not a capture file as written")
        unpacker = zlib.decompressobj(wbits=31)  # gzip's framing, one member
        try:
            out += unpacker.decompress(rest, MAX_BYTES + 1 - len(out))
        except zlib.error as error:
            raise CaptureError(f"{path}: damaged gzip data in member {members + 1} ({error})") from None
        if len(out) > MAX_BYTES or unpacker.unconsumed_tail:
            raise CaptureError(f"{path}: over {MAX_BYTES >> 20} MiB once uncompressed, too large for a capture")
        members += 1
        if not unpacker.eof:
            warnings.append(f"{path}: the gzip stream ends early (the file was cut short); what it holds was read")
            break
        rest = unpacker.unused_data
    return bytes(out), warnings


def capture_bytes(path: Path) -> tuple[bytes, list[str]]:
    """The capture's text as bytes (inflated when gzip) and the warnings reading it gave."""
    data = raw_bytes(path)
    if data[:2] != GZIP_MAGIC:
        return data, []
    return inflate(data, path)

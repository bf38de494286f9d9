"""A reader that leaves early (`ttinspect check --fail-on warning | head -1`) silences the output, never the
verdict: standard output is rebuilt on a file object that, when the pipe closes, points descriptor 1 at
/dev/null and goes on as if the write had succeeded. The command then runs to its end and exits with the code
it decided (1 for a gate that failed), where a BrokenPipeError raised mid-write used to cut it short and the
exit code no longer said anything (`set -o pipefail` saw 0)."""

from __future__ import annotations

import io
import os
import sys


class _PipeThatMayClose(io.FileIO):
    """Descriptor 1, whose reader may leave: the first EPIPE sends the rest to /dev/null, silently."""

    reader_left = False

    def write(self, data) -> int:
        try:
            return super().write(data) or 0
        except BrokenPipeError:
            type(self).reader_left = True
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self.fileno())
            os.close(null)
            return len(memoryview(data))


def install() -> None:
    """Standard output rebuilt over the closable pipe, with the encoding, error handler and buffering it had
    (a terminal stays line-buffered; PYTHONIOENCODING still applies). Nothing changes if stdout is not a real
    descriptor (a test's capture, a stream closed at start and reopened on /dev/null works as well)."""
    stream = sys.stdout
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    try:
        stream.flush()
    except OSError:
        return
    raw = _PipeThatMayClose(fd, "w", closefd=False)
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(raw), encoding=stream.encoding,
                                  errors=stream.errors, line_buffering=bool(stream.line_buffering))


def happened() -> bool:
    """Whether the reader of standard output left while the command wrote."""
    return _PipeThatMayClose.reader_left


__all__ = ["install", "happened"]

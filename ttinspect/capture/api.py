"""`with ttinspect.capture("step.ttcap"): model(x)`: record what this process compiles and launches in the
block (other processes it starts are not recorded: `ttinspect capture -- CMD` records a whole program).
`start`/`Recording.finish` are the same in two steps (the pytest option's session-long recording)."""

from __future__ import annotations

import contextlib
import os
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ttinspect.capture import process, recording, session
from ttinspect.capture.merge import Merged, merge
from ttinspect.errors import UsageError
from ttinspect.files.outputs import check_output


@dataclass
class Recording:
    """A capture being recorded in this process into `path`; `result` says what the file holds once
    `finish()` wrote it."""
    path: Path
    folder: Path
    compress: bool
    force: bool
    header: dict[str, Any] = field(repr=False)
    result: Merged | None = None

    shared_env: dict[str, str | None] | None = None  # what the environment held before worker processes were told

    def finish(self, exit_code: int | None = None) -> Merged:
        """Stop recording and write the file (idempotent). `exit_code`: what the recorded run ended with,
        when the caller knows it (the pytest option passes the session's); a block of Python has none."""
        if self.result is None:
            for name, value in (self.shared_env or {}).items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            if session.current() is not None and session.current().part.parent == self.folder:  # type: ignore[union-attr]
                recording.finish()
            self.result = merge(self.folder, self.path, base_header=self.header, exit_code=exit_code,
                                compress=self.compress, force=self.force)
        return self.result


def start(path: str | os.PathLike, *, force: bool = False, gzip: bool | None = None) -> Recording:
    """Start recording this process into the capture file `path` (written by `finish()`). An existing file
    is replaced only with `force`; `gzip` defaults to the name ending in `.gz`."""
    out = check_output(path, force=force, option="capture")
    running = session.current()
    if running is not None:
        raise UsageError(f"capture {path}: this process is already being recorded (into {running.part.parent}); "
                         "captures do not nest")
    header = process.header()
    folder = recording.parts_folder(out)
    recording.begin(folder, header)
    return Recording(out, folder, gzip if gzip is not None else out.name.endswith(".gz"), force,
                     process.run_fields(header))


@contextlib.contextmanager
def capture(path: str | os.PathLike, *, force: bool = False, gzip: bool | None = None) -> Iterator[Recording]:
    """Record every Triton compile and launch of this process while the block runs into the capture file
    `path` (docs/capture.md); the file is written when the block ends, normally or by an exception."""
    started = start(path, force=force, gzip=gzip)
    try:
        yield started
    finally:
        started.finish()


def start_with_workers(path: str | os.PathLike, *, force: bool = False) -> Recording:
    """`start`, and the parts folder named in this process's environment, so that worker processes started
    from now on (pytest-xdist's) record themselves through `join_as_worker`; `finish()` joins their parts."""
    if not force and os.path.lexists(path):  # an option with no --force beside it: say what to do instead
        raise UsageError(f"{path} already exists; remove it or name another file (a capture replaces nothing)")
    started = start(path, force=force)
    started.shared_env = {recording.ENV_FOLDER: os.environ.get(recording.ENV_FOLDER)}
    os.environ[recording.ENV_FOLDER] = str(started.folder)
    return started


def join_as_worker() -> bool:
    """In a worker process of a run started by `start_with_workers`: record this process into the run's
    parts folder (the controller joins them). False when the environment names no run."""
    recording.begin_from_environment()
    return session.current() is not None


def leave_as_worker() -> None:
    recording.finish()


class _CallablePackage(types.ModuleType):
    """`ttinspect.capture(...)` whatever `ttinspect.capture` is bound to: Python binds a parent package's
    attribute to the subpackage once `ttinspect.capture` is imported (the bootstrap of a captured program
    imports it first), so the package itself answers the call as the function does."""

    def __call__(self, path: str | os.PathLike, *, force: bool = False,
                 gzip: bool | None = None) -> contextlib.AbstractContextManager[Recording]:
        return capture(path, force=force, gzip=gzip)


sys.modules[__name__.rpartition(".")[0]].__class__ = _CallablePackage

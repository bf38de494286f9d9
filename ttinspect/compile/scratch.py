"""Triton's temporary files kept in a folder of ttinspect's, removed however a compile ends."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from typing import Any, Iterator


@contextlib.contextmanager
def private_tempdir() -> Iterator[None]:
    """Triton's temporary files (the .ptx it hands ptxas, ptxas's log and output) in a folder of this
    process's compiles, removed when the last one ends however it ends: Triton deletes them only when a
    compile returns, so a compile stopped by Ctrl-C or SIGTERM would leave them in the system's temporary
    folder. tempfile.tempdir and TMPDIR are process-wide: compiles in several threads share one folder
    (counted), and the first one's saved values are what the last one restores."""
    with _TEMPDIR_LOCK:
        if _TEMPDIR["users"] == 0:
            try:
                scratch = tempfile.mkdtemp(prefix="ttinspect-compile-")
            except OSError:  # no temporary folder at all: Triton will say so itself
                scratch = None
            _TEMPDIR.update(scratch=scratch, module=tempfile.tempdir, env=os.environ.get("TMPDIR"))
            if scratch is not None:
                tempfile.tempdir = os.environ["TMPDIR"] = scratch  # ptxas, a child process, reads TMPDIR
        _TEMPDIR["users"] += 1
    try:
        yield
    finally:
        with _TEMPDIR_LOCK:
            _TEMPDIR["users"] -= 1
            if _TEMPDIR["users"] == 0 and _TEMPDIR["scratch"] is not None:
                tempfile.tempdir = _TEMPDIR["module"]
                if _TEMPDIR["env"] is None:
                    os.environ.pop("TMPDIR", None)
                else:
                    os.environ["TMPDIR"] = _TEMPDIR["env"]
                shutil.rmtree(_TEMPDIR["scratch"], ignore_errors=True)


_TEMPDIR_LOCK = threading.Lock()
_TEMPDIR: dict[str, Any] = {"users": 0, "scratch": None, "module": None, "env": None}

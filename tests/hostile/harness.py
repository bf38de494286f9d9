"""The hostile-input suite's one way to run a case: the real CLI in a subprocess, in a workspace of user
files (the sentinel) that must be byte-identical afterwards.

A case says what it runs and what a careful tool answers: the exit code, how many lines stderr holds (one
for an error; two for a Triton compile error, which quotes the kernel's line; none for a success), a
pattern the first line must match, and whether stdout stays empty. No case may print a traceback or an
"internal error". Paths in argv and env are written with {ws} (the workspace), {out} (a scratch folder
outside it, for what a successful case writes) and {cache} (the suite's warm ttinspect cache).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

TIMEOUT = 120  # a hang is a failure, not a stuck suite


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]
    code: int  # the exit code a careful tool gives
    says: str = ""  # a regex the first stderr line must match (search)
    lines: int | tuple[int, ...] = 1  # stderr lines: 1 an error, 2 a compile error, 0 a success (or any of several)
    env: dict[str, str] = field(default_factory=dict)
    stdout: str = "empty"  # "empty" | "any" | "some"
    streams: str = ""  # "" | "stdout-closed" | "stderr-closed" | "stdout-full" | "stdout-pipe-closed" | "stdout-head-1"
    setup: Callable[[Path], None] | None = None  # prepares something in a per-case scratch folder ({out})


def expand(text: str, places: dict[str, str]) -> str:
    for key, value in places.items():
        text = text.replace("{" + key + "}", value)
    return text


def run(case: Case, places: dict[str, str]) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "ttinspect", *(expand(a, places) for a in case.argv)]
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1",
           **{k: expand(v, places) for k, v in case.env.items()}}
    env.pop("FORCE_COLOR", None)
    kwargs: dict = {"cwd": places["ws"], "env": env, "timeout": TIMEOUT, "stdin": subprocess.DEVNULL}
    if case.streams == "stdout-closed":
        return _with_closed_fd(argv, kwargs, 1)
    if case.streams == "stderr-closed":
        return _with_closed_fd(argv, kwargs, 2)
    if case.streams == "both-closed":
        return _with_closed_fd(argv, kwargs, 1, 2)
    if case.streams == "stdout-full":
        with open("/dev/full", "w") as full:
            done = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, text=True, **kwargs)
        return subprocess.CompletedProcess(done.args, done.returncode, "", done.stderr)
    if case.streams == "stdout-head-1":  # `cmd | head -1`: the reader takes one line and leaves
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   **{k: v for k, v in kwargs.items() if k != "timeout"})
        assert process.stdout is not None
        first = process.stdout.readline()
        process.stdout.close()
        _, err = process.communicate(timeout=TIMEOUT)
        return subprocess.CompletedProcess(argv, process.returncode, first, err)
    if case.streams == "stdout-pipe-closed":
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   **{k: v for k, v in kwargs.items() if k != "timeout"})
        assert process.stdout is not None
        process.stdout.close()  # the reader leaves before the first byte
        _, err = process.communicate(timeout=TIMEOUT)
        return subprocess.CompletedProcess(argv, process.returncode, "", err)
    return subprocess.run(argv, capture_output=True, text=True, **kwargs)


def _with_closed_fd(argv: list[str], kwargs: dict, *fds: int) -> subprocess.CompletedProcess:
    """The command started with descriptors `fds` closed, as `cmd >&-` or `cmd 2>&-` does."""
    def close():
        for fd in fds:
            os.close(fd)

    keep = subprocess.PIPE
    done = subprocess.run(argv, stdout=keep if 1 not in fds else None, stderr=keep if 2 not in fds else None,
                          text=True, preexec_fn=close, **kwargs)
    return subprocess.CompletedProcess(argv, done.returncode, done.stdout or "", done.stderr or "")


def check(case: Case, done: subprocess.CompletedProcess) -> None:
    err = done.stderr
    context = f"{case.id}: exit {done.returncode}\nstderr: {err[-2000:]!r}\nstdout: {done.stdout[-500:]!r}"
    assert "Traceback" not in err and "internal error" not in err, context
    assert done.returncode == case.code, context
    if case.streams in ("stderr-closed", "both-closed"):
        return
    lines = err.splitlines()
    assert len(lines) in (case.lines if isinstance(case.lines, tuple) else (case.lines,)), context
    if case.says:
        assert lines and re.search(case.says, lines[0]), context
    if case.lines and case.code != 0:
        assert lines[0].startswith(("ttinspect: error:", "ttinspect: terminated", "ttinspect: interrupted")), context
    if case.stdout == "empty":
        assert done.stdout == "", context
    elif case.stdout == "some":
        assert done.stdout.strip(), context


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path under root, never following a link nor opening a special file: its type, mode, and its
    bytes' digest (regular files) or its target (links)."""
    seen: dict[str, tuple] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            kind = stat.S_IFMT(info.st_mode)
            detail: str | None = None
            if stat.S_ISREG(info.st_mode):
                detail = hashlib.sha256(Path(path).read_bytes()).hexdigest()
            elif stat.S_ISLNK(info.st_mode):
                detail = os.readlink(path)
            seen[os.path.relpath(path, root)] = (kind, stat.S_IMODE(info.st_mode), detail)
    return seen

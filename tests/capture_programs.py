"""Shared by the capture tests: small programs to capture, and running one under `ttinspect capture` with
Triton's interpreter (CPU tensors)."""

from __future__ import annotations

import hashlib
import sys
import textwrap
from pathlib import Path
from typing import Any

from cli_helpers import run_process

# One row per program, a loop over its columns: replayed on the CPU (tests/test_capture_replay.py) and the GPU
# (tests/gpu/test_capture_replay_gpu.py), whose programs add their own tensors and launch.
ROW_SCALE_KERNEL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def row_scale(x_ptr, y_ptr, n_cols, stride, scale, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        for start in range(0, n_cols, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            mask = cols < n_cols
            tl.store(y_ptr + row * stride + cols, tl.load(x_ptr + row * stride + cols, mask=mask) * scale, mask=mask)

""")


def capture_interpreted(folder: Path, program: str, files: dict[str, str] | None = None) -> Path:
    """Write `program` as folder/prog.py (and `files` beside it), run it under `ttinspect capture` with
    TRITON_INTERPRET=1; returns the capture's path (folder/run.ttcap)."""
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
    (folder / "prog.py").write_text(program)
    run_process("capture", "-o", "run.ttcap", "--", sys.executable, "prog.py", cwd=folder,
                env={"TRITON_INTERPRET": "1"}, check=True)
    return folder / "run.ttcap"


def run_interpreted(code: str, cwd: Path | None = None) -> str:
    """Run Python `code` in a process of its own under TRITON_INTERPRET=1 (Triton reads it when a kernel is
    defined, so not in the test's process); its stdout, after asserting it exited 0."""
    import os
    import subprocess

    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "TRITON_INTERPRET": "1"}, cwd=cwd,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


class Recorder:
    """The session's interface (capture/session.py), keeping everything in lists; summaries are asked for."""

    stopped = False

    def __init__(self) -> None:
        self.compiles: list[dict[str, Any]] = []
        self.launches: list[tuple[str, str, tuple, Any]] = []
        self.autotune: list[dict[str, Any]] = []
        self.heuristics: list[dict[str, Any]] = []
        self.devices: list[dict[str, Any]] = []

    def add_source(self, path: str) -> str:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()

    def add_compile(self, record: dict[str, Any]) -> str:
        if record not in self.compiles:
            self.compiles.append(dict(record))
        return f"k{self.compiles.index(record) + 1}"

    def add_launch(self, compile_id: str, site: str, grid: tuple, args: Any = None, count: int = 1) -> None:
        self.launches.append((compile_id, site, grid, args() if callable(args) else args, count))

    def launch_count(self) -> int:
        return sum(entry[-1] for entry in self.launches)

    def add_autotune(self, record: dict[str, Any]) -> None:
        self.autotune.append(record)

    def add_heuristics(self, record: dict[str, Any]) -> None:
        self.heuristics.append(record)

    def set_device(self, device: dict[str, Any]) -> None:
        self.devices.append(device)

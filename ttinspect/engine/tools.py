"""Finding and running the NVIDIA tools Triton ships (ptxas, cuobjdump, nvdisasm).

They live in triton/backends/nvidia/bin/. The package is located with importlib (without importing
triton, which costs a quarter of a second); TRITON_<TOOL>_PATH overrides it as in Triton itself.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import tempfile
from pathlib import Path

from ttinspect.errors import ToolError


def triton_bin_dir() -> Path | None:
    spec = importlib.util.find_spec("triton")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "backends" / "nvidia" / "bin"


def find_tool(name: str) -> Path:
    override = os.environ.get(f"TRITON_{name.upper()}_PATH")
    candidates = [Path(override)] if override else []
    bin_dir = triton_bin_dir()
    if bin_dir is not None:
        candidates.append(bin_dir / name)
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    where = ", ".join(str(c) for c in candidates) or "no triton installation found"
    raise ToolError(f"{name} not found (looked in {where})")


def run_tool(name: str, args: list[str], *, timeout: float = 120) -> str:
    tool = find_tool(name)
    try:
        done = subprocess.run([str(tool), *args], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolError(f"{name} failed to run: {exc}") from exc
    if done.returncode != 0:
        raise ToolError(f"{name} exited with {done.returncode}: {done.stderr.strip()[:500]}")
    return done.stdout


def resource_usage(cubin: bytes) -> str:
    """`cuobjdump --dump-resource-usage`: REG / STACK / SHARED / LOCAL per function of the cubin."""
    with tempfile.TemporaryDirectory(prefix="ttinspect-") as tmp:
        path = os.path.join(tmp, "kernel.cubin")
        Path(path).write_bytes(cubin)
        return run_tool("cuobjdump", ["--dump-resource-usage", path])


def disassemble(cubin: bytes) -> str:
    """SASS of a cubin with line info (`//## File "...", line N` marks), via nvdisasm -c -g.

    Falls back to `cuobjdump -sass` (what triton.tools.disasm uses) if nvdisasm is missing."""
    with tempfile.TemporaryDirectory(prefix="ttinspect-") as tmp:
        path = os.path.join(tmp, "kernel.cubin")
        Path(path).write_bytes(cubin)
        try:
            return run_tool("nvdisasm", ["-c", "-g", path])
        except ToolError as first:
            try:
                return run_tool("cuobjdump", ["-sass", path])
            except ToolError:
                raise first from None

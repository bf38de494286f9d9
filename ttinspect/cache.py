"""Content-addressed artifact store. No triton import: a warm command reads from here and nothing else.

Layout: <root>/<key[:2]>/<key>/{kernel.ttir, kernel.ptx, ..., metadata.json}. An entry directory is
built under a temporary name and renamed into place, so readers never see half an entry; files added
later (the SASS, derived on demand) are written to a temporary file and `os.replace`d.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Mapping

# Bump when the compile engine changes what it stores for the same key
# (2: entries keep the ptxas -v log; 3: metadata names the source file).
ENGINE_VERSION = "3"

# Environment variables that change what Triton emits. Everything TRITON_* counts except those that
# only say where files go or how much is printed.
_ENV_IGNORED = {"TRITON_CACHE_DIR", "TRITON_HOME", "TRITON_DUMP_DIR", "TRITON_OVERRIDE_DIR",
                "TRITON_PRINT_AUTOTUNING", "TRITON_INTERPRET"}


def cache_root() -> Path:
    explicit = os.environ.get("TTINSPECT_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ttinspect"


def compile_env() -> dict[str, str]:
    return {k: v for k, v in sorted(os.environ.items())
            if k.startswith("TRITON_") and k not in _ENV_IGNORED}


def content_key(parts: Mapping[str, Any]) -> str:
    """sha256 of a canonical JSON rendering of everything that determines the compiled output."""
    blob = json.dumps({"engine": ENGINE_VERSION, **parts}, sort_keys=True, default=repr)
    return hashlib.sha256(blob.encode()).hexdigest()


def entry_dir(key: str, root: Path | None = None) -> Path:
    return (root or cache_root()) / key[:2] / key


def lookup(key: str, root: Path | None = None) -> Path | None:
    path = entry_dir(key, root)
    return path if (path / "metadata.json").is_file() else None


def store(key: str, files: Mapping[str, bytes], root: Path | None = None) -> Path:
    """Write a complete entry atomically; if another process won the race, keep theirs."""
    final = entry_dir(key, root)
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{key[:12]}-", dir=final.parent))
    try:
        for name, data in files.items():
            (staging / name).write_bytes(data)
        try:
            os.rename(staging, final)
        except OSError:  # already there (a concurrent writer): theirs is as good as ours
            if lookup(key, root) is None:
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return final


def add_file(entry: Path, name: str, data: bytes) -> Path:
    """Add a derived file (e.g. SASS) to an existing entry atomically."""
    fd, tmp = tempfile.mkstemp(prefix=f".{name}-", dir=entry)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, entry / name)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return entry / name

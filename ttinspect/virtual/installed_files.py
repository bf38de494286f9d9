"""Which installed distribution a file of the running program belongs to, read from what is installed (each
distribution's RECORD): a library's file, as against the user's own script, checkout or editable install — the
stand-ins act for a library's code and say where in it they acted."""

from __future__ import annotations

import importlib.metadata
import json
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping


@lru_cache(maxsize=1)
def _packages() -> Mapping[str, list[str]]:
    """Top-level package -> the installed distributions that provide it (read once: it walks every one)."""
    return importlib.metadata.packages_distributions()


def _editable(dist: Any) -> bool:
    """`pip install -e`: the user's own checkout, not a library's install."""
    try:
        return bool(json.loads(dist.read_text("direct_url.json") or "{}").get("dir_info", {}).get("editable"))
    except ValueError:
        return False


@lru_cache(maxsize=256)
def distribution_of(path: str) -> Any:
    """The installed, non-editable distribution whose RECORD lists `path`; None for any other file."""
    resolved = Path(path).resolve()
    for entry in sorted((p for p in sys.path if p), key=len, reverse=True):
        try:
            relative = resolved.relative_to(Path(entry).resolve())
        except (ValueError, OSError):
            continue
        top = relative.parts[0].removesuffix(".py") if relative.parts else ""
        for name in _packages().get(top, []):
            dist = importlib.metadata.distribution(name)
            if not _editable(dist) and relative.as_posix() in {str(f) for f in dist.files or ()}:
                return dist
        return None
    return None


def within(dist: Any, path: str) -> str:
    """`path` as the distribution's RECORD names it (mamba_ssm/ops/x.py)."""
    try:
        return Path(path).resolve().relative_to(Path(dist.locate_file("")).resolve()).as_posix()
    except ValueError:
        return path

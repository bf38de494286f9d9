"""The warm path of references only triton can resolve (a user's file, an autotuned kernel): the
reference's key — the file's content and everything written with it — maps to the builds it resolved
to last time, so a warm `dump my_mm.py:matmul` reads two small files and imports neither triton nor
the user's file.

    <cache root>/refs/<key[:2]>/<key>.json   {"builds": [Build.record(), ...]}
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from ttinspect.caches import store as cache
from ttinspect.targets.releases import triton_version
from ttinspect.engine.builds import Build
from ttinspect.refs.userfile import files_unchanged


def _path(key: str):
    return cache.cache_root() / "refs" / key[:2] / f"{key}.json"


def key(parts: Mapping[str, Any]) -> str:
    return cache.content_key({"memo": 1, **parts, "triton": triton_version(), "env": cache.compile_env()})


def load(memo_key: str) -> list | None:
    """The builds, or None when not recorded, when any entry has gone or when a file the kernel was
    made of has changed since (then everything is redone)."""
    path = _path(memo_key)
    try:
        data = json.loads(path.read_text())
        records = data["builds"]
        if not isinstance(records, list) or not files_unchanged(data.get("files") or {}):
            return None
    except (OSError, ValueError, KeyError, TypeError, RecursionError, AttributeError):  # absent or damaged
        return None
    builds = []
    for record in records:
        try:
            found = Build.from_record(record)
        except Exception:  # damaged, or a record another version of ttinspect wrote: resolve again
            return None
        if found is None:
            return None
        builds.append(found)
    return builds or None


def save(memo_key: str, builds: list, files: dict[str, str] | None = None) -> None:
    """`files`: the user's source files the builds were made from, path -> sha256 (userfile.user_files)."""
    cache.write_json(_path(memo_key), {"builds": [b.record() for b in builds], "files": files or {}})

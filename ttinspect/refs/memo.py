"""The warm path of references only triton can resolve (a user's file, an autotuned kernel): the
reference's key — the file's content and everything written with it — maps to the builds it resolved
to last time, so a warm `dump my_mm.py:matmul` reads two small files and imports neither triton nor
the user's file.

    <cache root>/refs/<key[:2]>/<key>.json   {"builds": [Build.record(), ...]}
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from .. import cache


def _path(key: str):
    return cache.cache_root() / "refs" / key[:2] / f"{key}.json"


def key(parts: Mapping[str, Any]) -> str:
    from ..engine import triton_version

    return cache.content_key({"memo": 1, **parts, "triton": triton_version(), "env": cache.compile_env()})


def load(memo_key: str) -> list | None:
    """The builds, or None when not recorded or when any entry has gone (then everything is redone)."""
    from ..engine import Build

    path = _path(memo_key)
    try:
        records = json.loads(path.read_text())["builds"]
        if not isinstance(records, list):
            return None
    except (OSError, ValueError, KeyError, TypeError, RecursionError):  # absent, or damaged: resolve again
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


def save(memo_key: str, builds: list) -> None:
    cache.write_json(_path(memo_key), {"builds": [b.record() for b in builds]})

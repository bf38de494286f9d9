"""What ttinspect's own cache holds, and reclaiming it (`ttinspect cache-info [--clear]`).

Only what ttinspect itself writes is counted or removed — compiled entries (`<2 hex>/<64 hex>/`),
derived files of Triton cache entries (`derived/`), reference memos (`refs/`), listing indexes
(`tritoncache-index/`), and the leftovers of interrupted writes (`.<key>-*`, `.trash-*`) — so a
TTINSPECT_CACHE_DIR pointed at a directory that holds other things loses nothing else. Autotune results
(`autotune/`) are GPU measurements, not recomputable offline: they are counted but kept.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import cache

_SHARD = re.compile(r"^[0-9a-f]{2}$")
_KEY = re.compile(r"^[0-9a-f]{64}$")
RECOMPUTABLE = ("derived", "refs", "tritoncache-index")


@dataclass
class CacheInfo:
    root: str
    exists: bool
    entries: int = 0  # compiled kernels
    entry_bytes: int = 0
    by_triton: dict[str, int] = field(default_factory=dict)  # Triton version -> entries
    by_target: dict[str, int] = field(default_factory=dict)
    old_format: int = 0  # entries without a manifest (written by an older ttinspect; never read)
    damaged: int = 0  # entries whose metadata does not match its digest
    leftovers: int = 0  # staging/trash directories of interrupted writes
    other_bytes: dict[str, int] = field(default_factory=dict)  # derived, refs, ... -> bytes
    autotune_results: int = 0
    total_bytes: int = 0
    toolchains: int = 0
    toolchain_bytes: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


def _size(path: Path) -> int:
    if path.is_symlink() or not path.exists():
        return 0
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _shards(root: Path):
    for shard in sorted(root.iterdir()):
        if shard.is_dir() and not shard.is_symlink() and _SHARD.match(shard.name):
            yield shard


def cache_info(root: Path | None = None) -> CacheInfo:
    root = Path(root or cache.cache_root())
    info = CacheInfo(str(root), root.is_dir())
    if not info.exists:
        return info
    for shard in _shards(root):
        for entry in shard.iterdir():
            if entry.name.startswith("."):
                info.leftovers += 1
                info.total_bytes += _size(entry)
                continue
            if not (_KEY.match(entry.name) and entry.is_dir()):
                continue
            size = _size(entry)
            info.entries += 1
            info.entry_bytes += size
            info.total_bytes += size
            if not (entry / cache.MANIFEST).is_file():
                info.old_format += 1
                continue
            try:
                meta = json.loads(cache.read(entry, cache.METADATA))
            except (cache.Damaged, ValueError):
                info.damaged += 1
                continue
            version = str(meta.get("triton_version", "?"))
            target = str((meta.get("ttinspect") or {}).get("target", "?"))
            info.by_triton[version] = info.by_triton.get(version, 0) + 1
            info.by_target[target] = info.by_target.get(target, 0) + 1
    for name in RECOMPUTABLE:
        size = _size(root / name)
        if size:
            info.other_bytes[name] = size
            info.total_bytes += size
    autotune = root / "autotune"
    if autotune.is_dir():
        info.autotune_results = sum(1 for p in autotune.glob("*.json"))
        info.total_bytes += _size(autotune)
    toolchains = root / "toolchains"
    if toolchains.is_dir():  # other Tritons' environments: kept by --clear (`ttinspect toolchains --remove`)
        info.toolchains = sum(1 for p in toolchains.glob("*.json"))
        info.toolchain_bytes = _size(toolchains)
        info.total_bytes += info.toolchain_bytes
    return info


def clear(root: Path | None = None) -> tuple[int, int]:
    """Remove every recomputable thing ttinspect wrote; (entries removed, bytes freed)."""
    root = Path(root or cache.cache_root())
    if not root.is_dir():
        return 0, 0
    entries = freed = 0
    for shard in _shards(root):
        for entry in list(shard.iterdir()):
            ours = _KEY.match(entry.name) or entry.name.startswith(".")
            if not ours or entry.is_symlink():
                continue
            freed += _size(entry)
            if entry.is_dir():
                entries += bool(_KEY.match(entry.name))
                shutil.rmtree(entry, ignore_errors=True)  # a compile running meanwhile: what it holds stays
            else:  # a leftover file (a trashed entry that was a file)
                entry.unlink(missing_ok=True)
        if not any(shard.iterdir()):
            try:
                shard.rmdir()
            except OSError:
                pass
    for name in RECOMPUTABLE:
        path = root / name
        if path.is_dir() and not path.is_symlink():
            freed += _size(path)
            shutil.rmtree(path, ignore_errors=True)
    return entries, freed

"""What ttinspect's own cache holds, and reclaiming it (`ttinspect cache-info [--clear]`).

Only what ttinspect itself writes is counted or removed — compiled entries (`<2 hex>/<64 hex>/`),
derived files of Triton cache entries (`derived/`), reference memos (`refs/`), listing indexes
(`tritoncache-index/`), and the leftovers of interrupted writes (`.<key>-*`, `.trash-*`) — so a
TTINSPECT_CACHE_DIR pointed at a directory that holds other things loses nothing else. Autotune results
(`autotune/`) are GPU measurements, not recomputable offline: they are counted but kept.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ttinspect.caches import store as cache
from ttinspect.errors import UsageError
from ttinspect.files.outputs import not_a_regular_file

_SHARD = re.compile(r"^[0-9a-f]{2}$")
_KEY = re.compile(r"^[0-9a-f]{64}$")
RECOMPUTABLE = ("derived", "refs", "tritoncache-index", "rendered", "examples-index", "captured-sources")


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
    """Bytes under path, never following a link (os.walk does not)."""
    if path.is_symlink() or not path.exists():
        return 0
    if path.is_file():
        return path.stat().st_size
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                info = os.lstat(os.path.join(folder, name))
            except OSError:
                continue
            total += 0 if stat.S_ISLNK(info.st_mode) else info.st_size
    return total


def _kind(path: Path) -> str:
    try:
        mode = path.lstat().st_mode
    except OSError as error:
        return error.strerror or "unreadable"
    return not_a_regular_file(path, mode) or "a regular file"


def _shards(root: Path):
    for shard in sorted(root.iterdir()):
        if shard.is_dir() and not shard.is_symlink() and _SHARD.match(shard.name):
            yield shard


def cache_info(root: Path | None = None) -> CacheInfo:
    root = Path(root or cache.cache_root())
    info = CacheInfo(str(root), root.is_dir())
    if not info.exists:
        if root.exists() or root.is_symlink():
            raise UsageError(f"the cache path {root} is not a directory ({_kind(root)}); point TTINSPECT_CACHE_DIR "
                             "at a directory")
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


# ttinspect's layout of everything recomputable, as (child pattern, child is a folder) per folder: what
# --clear may remove. The leftovers of interrupted writes have names of their own, per level: a staging
# entry `.<key[:12]>-XXXX` and a trashed one `.trash-<key[:12]>-<pid>` in a shard (cache.py), and
# write_atomic's `.<name>-XXXX` beside a file of the layout. Any other name — `.git`, `.ssh` — is not ours.
_HEX2 = r"[0-9a-f]{2}"
_HEX64 = r"[0-9a-f]{64}"
_STAGING = r"\.(?:trash-)?[0-9a-f]{12}-[A-Za-z0-9_]+"


def _temporary(name: str) -> str:
    """write_atomic's temporary file for a file called `name` (a regex)."""
    return rf"\.{name}-[A-Za-z0-9_]+"


_LAYOUT: dict[str, list[tuple[str, bool]]] = {
    "": [(_HEX64, True), (_STAGING, True), (_STAGING, False)],  # <shard>/<key>/: compiled entries
    "derived": [(_HEX2, True)], "derived/*": [(_HEX64, True)],  # derived/<2>/<cubin digest>/
    "refs": [(_HEX2, True)], "refs/*": [(_HEX64 + r"\.json", False), (_temporary(_HEX64 + r"\.json"), False)],
    "tritoncache-index": [(_HEX64 + r"\.json", False), (_temporary(_HEX64 + r"\.json"), False)],
    "examples-index": [(_HEX64 + r"\.json", False), (_temporary(_HEX64 + r"\.json"), False)],
    "rendered": [(_HEX2, True)],
    "rendered/*": [(_HEX64 + r"(\.sha256)?", False), (_temporary(_HEX64 + r"(\.sha256)?"), False)],
}
_TOP_LEFTOVER = _temporary(r"CACHEDIR\.TAG")  # the tag's own temporary file
_KEPT = {"autotune", "toolchains", cache.TAG}  # GPU measurements, other Tritons (own command), the tag


class NotOurs(UsageError):
    """--clear found files ttinspect never writes in an untagged folder: it is not ttinspect's cache."""


@dataclass
class Cleared:
    root: str
    removed: dict[str, int] = field(default_factory=dict)  # what -> how many (entries, leftovers, ...)
    freed_bytes: int = 0
    strays: list[str] = field(default_factory=list)  # things ttinspect did not make: left in place
    kept: list[str] = field(default_factory=list)  # ttinspect's own that --clear keeps (autotune, ...)

    @property
    def entries(self) -> int:
        return self.removed.get("compiled entries", 0)


def _matches(path: Path, pattern: str, folder: bool) -> bool:
    if path.is_symlink():  # ttinspect never makes links: one here is not ours to follow or remove
        return False
    return bool(re.fullmatch(pattern, path.name)) and (path.is_dir() if folder else path.is_file())


def _ours_and_strays(root: Path) -> tuple[list[tuple[str, Path]], list[str], list[Path]]:
    """Everything under root that has ttinspect's recomputable layout, with what it is; every other name
    (relative), which --clear never touches; and the layout's own folders (shards, `refs/ab`), deepest
    first, which --clear removes when they are left empty."""
    ours: list[tuple[str, Path]] = []
    strays: list[str] = []
    folders: list[Path] = []

    def walk(folder: Path, layout: str, kind: str) -> None:
        nested = f"{layout}/*" if layout else None
        for child in sorted(folder.iterdir()):
            rules = _LAYOUT[layout]
            if not any(_matches(child, pattern, is_dir) for pattern, is_dir in rules):
                strays.append(str(child.relative_to(root)))
            elif nested in _LAYOUT and child.is_dir() and not child.name.startswith("."):
                walk(child, nested, kind)
            else:
                ours.append(("leftovers" if child.name.startswith(".") else kind, child))
        folders.append(folder)

    for child in sorted(root.iterdir()):
        if child.name in _KEPT and not child.is_symlink():
            continue
        if _SHARD.match(child.name) and child.is_dir() and not child.is_symlink():
            walk(child, "", "compiled entries")
        elif child.name in _LAYOUT and child.is_dir() and not child.is_symlink():
            walk(child, child.name, {"derived": "derived folders", "refs": "reference memos",
                                     "tritoncache-index": "listing indexes", "rendered": "kept outputs",
                                     "examples-index": "example indexes"}[child.name])
        elif re.fullmatch(_TOP_LEFTOVER, child.name) and child.is_file() and not child.is_symlink():
            ours.append(("leftovers", child))
        else:
            strays.append(child.name)
    return ours, strays, folders


def clear(root: Path | None = None) -> Cleared:
    """Remove every recomputable thing ttinspect wrote, and nothing else. Raises NotOurs (nothing removed)
    when the folder is not tagged as ttinspect's and holds anything ttinspect never writes."""
    root = Path(root or cache.cache_root())
    result = Cleared(str(root))
    if not root.exists():
        return result
    if not root.is_dir():
        raise NotOurs(f"{root} is not a directory: it is not ttinspect's cache; nothing removed")
    ours, strays, folders = _ours_and_strays(root)
    tagged = cache.is_tagged(root)
    if strays and not tagged:
        shown = ", ".join(strays[:3]) + (f" and {len(strays) - 3} more" if len(strays) > 3 else "")
        raise NotOurs(f"{root} is not ttinspect's cache: it holds {shown}, which ttinspect never writes, and no "
                      f"{cache.TAG} of ttinspect's; nothing removed (point TTINSPECT_CACHE_DIR at a folder of "
                      "ttinspect's own)")
    if not tagged and ours:  # a cache an older ttinspect made (every name is ours): tag it from now on
        cache.write_atomic(root / cache.TAG, cache.TAG_TEXT.encode())
    for kind, path in ours:
        size = _size(path)
        try:
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
        except FileNotFoundError:  # another process removed it meanwhile (a damaged entry, a finished write)
            continue
        except OSError:  # a compile writing meanwhile, or no permission: what remains stays, uncounted
            continue
        result.removed[kind] = result.removed.get(kind, 0) + 1
        result.freed_bytes += size
    for folder in folders:  # the layout's folders only, deepest first: a user's empty folder is a stray, kept
        try:
            folder.rmdir()
        except OSError:  # not empty (a stray inside, or a write meanwhile)
            pass
    result.strays = strays
    result.kept = sorted(p.name for p in root.iterdir() if p.name in _KEPT - {cache.TAG})
    return result

"""Content-addressed artifact store that cannot lie. No triton import: a warm command reads from here
and nothing else.

Layout: <root>/<key[:2]>/<key>/{kernel.ttir, kernel.ptx, ..., metadata.json, manifest.json}.
- An entry is built under a temporary name and renamed into place, so readers never see half an entry
  (a process killed mid-compile leaves only a `.<key>-*` staging directory, which no reader looks at).
- `manifest.json` holds the sha256 of every file stored with the entry; every read checks the file it
  reads against it (`read`), so a file changed, truncated or removed behind ttinspect's back is never
  shown as the kernel: the caller is told (`Damaged`) and compiles again.
- Files derived later (the SASS, the resource table) are written to a temporary file and `os.replace`d,
  each with a `<name>.sha256` beside it (the manifest is never rewritten: two processes may derive at
  once).
- A cache that cannot be written (read-only, a file where the directory should be, a full disk) is
  not an error: one warning line, and the process keeps its entries in a temporary directory removed
  at exit.
- Ownership: a root ttinspect creates (or finds empty) gets a `CACHEDIR.TAG` naming ttinspect before
  anything is written in it (`claim`); `cache-info --clear` removes things only in a tagged root, or in
  one whose every file has ttinspect's layout (cache_info.py). A folder of the user's that
  TTINSPECT_CACHE_DIR points at is used, but never tagged, so it is never cleared.
"""

from __future__ import annotations

import atexit
import errno
import hashlib
import json
import os
import shutil
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from ttinspect.errors import TTInspectError
from ttinspect.files.terminal_text import shown

# Bump when the compile engine changes what it stores for the same key
# (2: entries keep the ptxas -v log; 3: metadata names the source file; 4: entries carry a manifest;
# 5: a config holding the other vendor's compile option is refused, so an entry stored for one is not served).
ENGINE_VERSION = "5"
MANIFEST = "manifest.json"
METADATA = "metadata.json"
# The cache-directory tag convention (bford.info/cachedir): backup tools skip a folder holding it, and
# its second line says which program made the folder, so --clear can tell ours from the user's.
TAG = "CACHEDIR.TAG"
TAG_SIGNATURE = "Signature: 8a477f597d28d172789f06886806bc55"
TAG_TEXT = (f"{TAG_SIGNATURE}\n# This file is a cache directory tag created by ttinspect.\n"
            "# Everything here can be made again (`ttinspect cache-info --clear` removes it).\n")

# Environment variables that change what Triton emits. Everything TRITON_* counts except those that
# only say where files go or how much is printed.
_ENV_IGNORED = {"TRITON_CACHE_DIR", "TRITON_HOME", "TRITON_DUMP_DIR", "TRITON_OVERRIDE_DIR",
                "TRITON_PRINT_AUTOTUNING", "TRITON_INTERPRET"}


class Damaged(TTInspectError):
    """A file of an entry does not match what was stored (or is gone): the entry must not be read."""

    def __init__(self, entry: Path, name: str, reason: str):
        self.entry, self.name, self.reason = entry, name, reason
        super().__init__(f"the cache entry {entry} is damaged: {name} {reason}")


class CacheError(TTInspectError):
    """Neither the cache nor a temporary directory can be written."""


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


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- warnings: one line each, once per process ---------------------------------------------------

_warned: set[str] = set()


WARNING = "ttinspect: warning: "  # how a warning line starts (another Triton's worker's are relayed by it)


def warn(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        print(f"{WARNING}{shown(message)}", file=sys.stderr)  # a file's name may hold control characters


# --- the fallback when the cache cannot be written -----------------------------------------------

_fallback: Path | None = None


def _fallback_root(reason: OSError, where: Path) -> Path:
    """A private temporary root for this process, removed at exit."""
    global _fallback
    if _fallback is None:
        try:
            _fallback = Path(tempfile.mkdtemp(prefix="ttinspect-nocache-"))
        except OSError as exc:
            raise CacheError(f"cannot write the cache at {where} ({_why(reason)}) nor a temporary directory "
                             f"({_why(exc)}); set TTINSPECT_CACHE_DIR to a writable directory") from exc
        atexit.register(shutil.rmtree, _fallback, True)
    warn(f"cannot write the cache at {where} ({_why(reason)}); working without a cache in this run "
         "(set TTINSPECT_CACHE_DIR to a writable directory)")
    return _fallback


def _why(error: OSError) -> str:
    if error.errno == errno.ENOSPC:
        return "no space left on device"
    if error.errno in (errno.EEXIST, errno.ENOTDIR):
        return "a file is in the way"
    return error.strerror or str(error)


def is_tagged(root: Path) -> bool:
    """Whether `root` holds ttinspect's CACHEDIR.TAG (a regular file, not a link to one elsewhere)."""
    tag = root / TAG
    try:
        if tag.is_symlink() or not tag.is_file():
            return False
        head = tag.read_text(errors="replace")[:400]
    except OSError:
        return False
    return head.startswith(TAG_SIGNATURE) and "created by ttinspect" in head


_claimed: set[Path] = set()


def claim(root: Path | None = None) -> Path:
    """Make the root before the first write in it; tag it as ttinspect's when ttinspect creates it or finds
    it empty — never a folder that already holds the user's files. Returns the root. Raises OSError."""
    root = root or cache_root()
    if root in _claimed:
        return root
    try:
        root.mkdir(parents=True)
        ours = True
    except FileExistsError:
        if not root.is_dir():
            raise
        ours = not is_tagged(root) and not any(root.iterdir())
    if ours:
        write_atomic(root / TAG, TAG_TEXT.encode())
    _claimed.add(root)
    return root


def _roots(root: Path | None) -> list[Path]:
    roots = [root or cache_root()]
    if _fallback is not None and root is None:
        roots.append(_fallback)
    return roots


# --- entries -------------------------------------------------------------------------------------

def entry_dir(key: str, root: Path | None = None) -> Path:
    return (root or cache_root()) / key[:2] / key


def lookup(key: str, root: Path | None = None) -> Path | None:
    """The entry for `key` if it is whole: manifest readable, metadata present and matching. A damaged
    entry is reported in one line, removed when possible, and treated as absent (the caller compiles)."""
    for base in _roots(root):
        path = entry_dir(key, base)
        if path.is_dir() and whole(path):
            return path
    return None


def whole(entry: Path) -> bool:
    """Whether an existing entry may be read (its manifest and metadata check out); a damaged one is
    reported in one line and removed when possible, so that the caller compiles it again."""
    try:
        read(entry, METADATA)
        return True
    except Damaged as damage:
        warn(f"{damage}; compiling it again")
        discard(entry)
        return False


@lru_cache(maxsize=256)
def _manifest(entry: Path, stamp: tuple[int, int]) -> dict[str, str]:
    data = json.loads((entry / MANIFEST).read_bytes())
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ValueError("not a manifest")
    return data


def manifest(entry: Path) -> dict[str, str]:
    try:
        stat = (entry / MANIFEST).stat()
        return _manifest(entry, (stat.st_mtime_ns, stat.st_size))
    except FileNotFoundError as exc:
        raise Damaged(entry, MANIFEST, "is missing") from exc
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise Damaged(entry, MANIFEST, f"cannot be read ({type(exc).__name__})") from exc


def read(entry: Path, name: str) -> bytes:
    """A file of an entry, checked against the digest it was stored with (the manifest, or for a
    derived file its `.sha256` beside it). Raises Damaged, never returns bytes that were not stored."""
    expected: str | None
    try:
        expected = (entry / f"{name}.sha256").read_text().strip()  # a derived file
    except FileNotFoundError:
        expected = manifest(entry).get(name)
        if expected is None:
            raise Damaged(entry, name, "is missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise Damaged(entry, name, f"has an unreadable digest ({exc})") from exc
    try:
        data = (entry / name).read_bytes()
    except FileNotFoundError as exc:
        raise Damaged(entry, name, "is missing") from exc
    except OSError as exc:
        raise Damaged(entry, name, f"cannot be read ({_why(exc)})") from exc
    if digest(data) != expected:
        raise Damaged(entry, name, "does not match its digest (changed after it was stored)")
    return data


def has(entry: Path, name: str) -> bool:
    """Whether the entry was stored with `name` or has derived it (without reading it)."""
    try:
        return name in manifest(entry) or (entry / f"{name}.sha256").is_file()
    except Damaged:
        return (entry / name).is_file()


def discard(entry: Path) -> None:
    """Remove a damaged entry atomically (renamed away first, so no reader sees it half-removed)."""
    trash = entry.with_name(f".trash-{entry.name[:12]}-{os.getpid()}")
    try:
        os.rename(entry, trash)
    except OSError:
        return  # read-only, or another process removed it already: lookups keep refusing it
    if trash.is_dir() and not trash.is_symlink():
        shutil.rmtree(trash, ignore_errors=True)
    else:  # a file where the entry should be
        trash.unlink(missing_ok=True)


def store(key: str, files: Mapping[str, bytes], root: Path | None = None) -> Path:
    """Write a complete entry atomically; if another process won the race, keep theirs. A cache that
    cannot be written falls back to a temporary one (one warning line)."""
    base = root or cache_root()
    try:
        return _store_in(base, key, files)
    except OSError as exc:
        if root is not None:
            raise
        try:
            return _store_in(_fallback_root(exc, base), key, files)
        except OSError as again:
            raise CacheError(f"cannot store a compiled kernel: {_why(again)} ({again.filename or base})") from again


def _store_in(base: Path, key: str, files: Mapping[str, bytes]) -> Path:
    claim(base)
    final = entry_dir(key, base)
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{key[:12]}-", dir=final.parent))
    try:
        sums = {}
        for name, data in files.items():
            (staging / name).write_bytes(data)
            sums[name] = digest(data)
        (staging / MANIFEST).write_text(json.dumps(sums, indent=1, sort_keys=True))
        try:
            os.rename(staging, final)
        except OSError:  # already there: a concurrent writer's is as good as ours, if whole
            try:
                read(final, METADATA)
            except Damaged:  # a damaged one that could not be discarded: replace it
                discard(final)
                os.rename(staging, final)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return final


def add_file(entry: Path, name: str, data: bytes, *, create: bool = False) -> Path | None:
    """Add a derived file (e.g. SASS) with its digest, atomically. None when the entry cannot be
    written (a read-only cache, or an entry removed meanwhile — never recreated half): the caller still
    has the data, only the next run derives it again. `create`: a folder of derived files only."""
    try:
        if create:
            _claim_above(entry)
            entry.mkdir(parents=True, exist_ok=True)
        elif not entry.is_dir():
            return None
        write_atomic(entry / f"{name}.sha256", digest(data).encode())
        write_atomic(entry / name, data)
    except OSError as exc:
        warn(f"cannot write the cache at {entry} ({_why(exc)}); derived files are not kept")
        return None
    return entry / name


def write_json(path: Path, data: Any) -> bool:
    """A small record beside the entries (reference memos, listing indexes), atomically. False when the
    cache cannot be written: such records only make the next run faster."""
    try:
        _claim_above(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(data, default=repr).encode())
    except OSError:
        return False
    return True


def _claim_above(path: Path) -> None:
    """Claim the cache root before writing `path` under it (paths elsewhere: nothing to claim)."""
    root = cache_root()
    if root in path.parents:
        claim(root)


def make_dir(path: Path) -> Path:
    """A folder under the cache root (autotune results, toolchains), the root claimed first."""
    _claim_above(path)
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_atomic(path: Path, data: bytes) -> None:
    """Write through a temporary file in the same directory and `os.replace` it into place: a reader
    sees the old file or the new one, never half of one. Raises OSError."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise

"""Triton's own cache, read-only: the kernels a real run compiled (its own, or those torch.compile
generated). No triton import — the files are read as they are.

Layout (Triton 3.x): <TRITON_CACHE_DIR or ~/.triton/cache>/<HASH>/ holding `<name>.json` (the compiled
kernel's metadata: target, num_warps, num_stages, shared, triton_version), the stages `<name>.ttir`,
`.ttgir`, `.llir`, `.ptx`, `.cubin` (AMD: `.amdgcn`, `.hsaco`), `<name>.source` and a
`__grp__<name>.json` naming the group. Other directories (Inductor's autotune results, launcher .so
files) have no kernel metadata and are skipped. Nothing is ever written there: files ttinspect derives
(SASS, the resource table) go to its own cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ttinspect.errors import UsageError
from ttinspect.caches.store import cache_root
from ttinspect.files.source_files import read_regular

KERNEL_STAGES = ("ttir", "ttgir", "llir", "ptx", "cubin")
# #loc = loc("/path/to/file.py":12:0)  — the first location in the TTIR is the kernel's `def` line
_FIRST_LOC = re.compile(r'loc\("(?P<file>[^"]+)":(?P<line>\d+):\d+\)')


def default_dir() -> Path:
    """Where Triton puts its cache: TRITON_CACHE_DIR, else TRITON_HOME/.triton/cache, else ~/.triton/cache."""
    explicit = os.environ.get("TRITON_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    home = os.environ.get("TRITON_HOME") or os.path.expanduser("~")
    return Path(home) / ".triton" / "cache"


@dataclass(frozen=True)
class Entry:
    """One compiled kernel in Triton's cache."""

    directory: Path
    name: str  # the kernel's name (the stem of its files)

    @property
    def id(self) -> str:
        return self.directory.name

    def file(self, ext: str) -> Path:
        return self.directory / f"{self.name}.{ext}"

    @cached_property
    def metadata(self) -> dict[str, Any]:
        try:
            raw = read_regular(self.file("json"))  # never blocks: a FIFO named k.json is not metadata
            if raw is None:
                raise OSError("missing, unreadable or not a regular file")
            data = json.loads(raw.decode())
        except (OSError, ValueError, RecursionError) as error:
            raise UsageError(f"cache entry {self.id}: {self.name}.json cannot be read ({error})") from error
        if not isinstance(data, dict):
            raise UsageError(f"cache entry {self.id}: {self.name}.json is not kernel metadata")
        return data

    @property
    def backend(self) -> str:
        target = self.metadata.get("target") or {}
        return str(target.get("backend", "?")) if isinstance(target, dict) else "?"

    @property
    def arch(self) -> str:
        """"sm_90" for CUDA; the backend's own name otherwise (e.g. "hip:gfx942")."""
        target = self.metadata.get("target") or {}
        arch = target.get("arch") if isinstance(target, dict) else None
        if self.backend == "cuda" and isinstance(arch, int):
            return f"sm_{arch}"
        return f"{self.backend}:{arch}"

    def missing(self) -> list[str]:
        """The stages a CUDA kernel should have and this entry lacks."""
        return [ext for ext in KERNEL_STAGES if not self.file(ext).is_file()]

    def source_location(self) -> tuple[str, int] | None:
        """The kernel's Python file and `def` line, from the first location in its TTIR."""
        for ext in ("ttir", "source"):
            path = self.file(ext)
            if path.is_file():
                with path.open(errors="replace") as handle:
                    head = handle.read(65536)
                match = _FIRST_LOC.search(head)
                if match:
                    return match["file"], int(match["line"])
        return None

    def signature(self) -> list:
        """What changes when the entry changes: every file's name, size and mtime (for the index)."""
        out = []
        with os.scandir(self.directory) as it:
            for item in it:
                stat = item.stat()
                out.append([item.name, stat.st_size, stat.st_mtime_ns])
        return sorted(out)


def _kernel_name(directory: Path, files: list[str]) -> str | None:
    """The stem of the entry's metadata: `<name>.json` beside a `__grp__<name>.json`, or the one
    .json with a stage file of the same stem."""
    groups = [f[len("__grp__"):-len(".json")] for f in files if f.startswith("__grp__") and f.endswith(".json")]
    for name in groups:
        if f"{name}.json" in files:
            return name
    stems = {f[:-5] for f in files if f.endswith(".json") and not f.startswith("__grp__")}
    for stem in sorted(stems):
        if any(f"{stem}.{ext}" in files for ext in (*KERNEL_STAGES, "amdgcn", "hsaco")):
            return stem
    return None


def scan(root: Path) -> list[Entry]:
    """Every kernel entry under `root`, sorted by id. A missing or foreign directory is one clear line."""
    if not root.exists():
        raise UsageError(f"{root}: no such Triton cache directory (set TRITON_CACHE_DIR, or pass the directory)")
    if not root.is_dir():
        raise UsageError(f"{root}: not a directory")
    entries = []
    try:
        children = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError as error:
        raise UsageError(f"{root}: cannot be read ({error.strerror})") from error
    for child in children:
        if not child.is_dir() or child.name.startswith("."):
            continue
        try:
            files = os.listdir(child.path)
        except OSError:
            continue
        name = _kernel_name(Path(child.path), files)
        if name is not None:
            entries.append(Entry(Path(child.path), name))
    return entries


def find(root: Path, prefix: str) -> Entry:
    """The one entry whose id starts with `prefix` (case-insensitive), or the name of a kernel that has
    exactly one entry. Ambiguous or unknown: one line listing candidates."""
    text = prefix.strip()
    if not text:
        raise UsageError("cache: needs an entry id prefix (from `ttinspect cache`), e.g. cache:3FA9C2")
    entries = scan(root)
    if not entries:
        _refuse_an_entry_without_a_kernel(root, text)
        raise UsageError(f"{root}: no Triton kernels in this directory (is it a Triton cache?)")
    matches = [e for e in entries if e.id.lower().startswith(text.lower())]
    if not matches:
        matches = [e for e in entries if e.name == text]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        _refuse_an_entry_without_a_kernel(root, text)
        near = ", ".join(f"{e.id[:10]} ({e.name})" for e in entries[:8])
        more = f" and {len(entries) - 8} more" if len(entries) > 8 else ""
        raise UsageError(f"cache:{text}: no entry in {root} starts with {text!r}; entries: {near}{more}")
    shown = ", ".join(f"{e.id[:12]} ({e.name})" for e in matches[:8])
    raise UsageError(f"cache:{text}: {len(matches)} entries match; give more characters: {shown}")


def _refuse_an_entry_without_a_kernel(root: Path, text: str) -> None:
    """An entry folder that matches the prefix but holds no kernel (its metadata .json gone, or only a
    group file): say that, not that no entry starts with the prefix."""
    try:
        folders = [e for e in os.scandir(root) if e.is_dir() and not e.name.startswith(".")
                   and e.name.lower().startswith(text.lower())]
    except OSError:
        return
    if len(folders) == 1:
        try:
            files = sorted(os.listdir(folders[0].path))
        except OSError as error:
            raise UsageError(f"cache:{text}: the entry {folders[0].path} cannot be read ({error.strerror})") from None
        held = ", ".join(files[:6]) + (f" and {len(files) - 6} more" if len(files) > 6 else "") or "nothing"
        raise UsageError(f"cache:{text}: the entry {folders[0].path} holds no kernel Triton can describe (its "
                         f"metadata <name>.json is missing; it holds {held}): it is incomplete or damaged")


def derived_dir(entry: Entry) -> Path:
    """Where ttinspect keeps what it derives from a Triton cache entry (SASS, resources): its own cache,
    keyed by the cubin's content — never inside Triton's cache."""
    cubin = entry.file("cubin")

    data = read_regular(cubin)
    digest = hashlib.sha256(data if data is not None else str(entry.directory).encode()).hexdigest()
    return cache_root() / "derived" / digest[:2] / digest

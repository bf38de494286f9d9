"""Whether a captured kernel's source is still the one the run compiled, and the captured text as files.

A compile record names the kernel's file and the files of the @jit functions it calls, each with its
sha256 at the time of the run. Before a captured kernel is compiled again they are hashed here: the same
everywhere, it is compiled from its file (the same path as in the run, so even the PTX's debug info
matches); otherwise the user chooses (`--source`): `captured` writes the text the capture kept under
ttinspect's cache, in a folder of its own keyed by the files' sha256, with the same file names (and the
same package folders, so relative imports work), and compiles that copy; `current` compiles the files as
they are now. Without a choice the reference is refused in one line naming both digests.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from ttinspect.caches import store as cache
from ttinspect.errors import UsageError
from ttinspect.files.source_files import read_regular, sha256_or_empty

if TYPE_CHECKING:
    from ttinspect.capture.format import Capture, Compile

SOURCE_CHOICES = ("captured", "current")
CAPTURED_FOLDER = "captured-sources"  # under the cache root


@dataclass(frozen=True)
class FileState:
    path: str
    captured: str  # its sha256 in the run
    now: str  # its sha256 here ("": not here, or not a regular file)

    @property
    def changed(self) -> bool:
        return self.captured != self.now


def file_states(record: Compile) -> list[FileState]:
    """The kernel's file first, then the other files its compile was made of, each hashed now."""
    recorded = dict(record.sources)
    if record.file and record.sha256:
        recorded[record.file] = record.sha256
    order = sorted(recorded, key=lambda path: (path != record.file, path))
    return [FileState(path, recorded[path], sha256_or_empty(path)) for path in order]


def status(record: Compile) -> str:
    """`same`, `changed` or `missing` (the kernel's file is not on this machine), for listings."""
    states = file_states(record)
    if not states:
        return "unknown"
    if record.file and not states[0].now:
        return "missing"
    return "changed" if any(s.changed for s in states) else "same"


def kernel_file(capture: Capture, record: Compile, where: str, choice: str | None) -> Path:
    """The file to compile `record`'s kernel from: its own when unchanged (or `current`), the captured copy
    with `captured`; a change without a choice is one line naming both digests."""
    if choice is not None and choice not in SOURCE_CHOICES:
        raise UsageError(f"--source takes {' or '.join(SOURCE_CHOICES)}, got {choice!r}")
    if not record.file:
        raise UsageError(f"{where}: the capture does not name the kernel's file, so it cannot be compiled again")
    changed = [s for s in file_states(record) if s.changed]
    if not changed or choice == "current":
        if not os.path.isfile(record.file):
            raise UsageError(f"{where}: its file {record.file} is not on this machine; --source captured compiles "
                             "the text the capture kept")
        return Path(record.file)
    if choice == "captured":
        return _write_captured(capture, record, where)
    raise UsageError(f"{where}: {_changed_text(changed)}")


def refuse_changed(records: Iterable[Compile], where: str) -> None:
    """One line for a whole capture (`check`, `html`) whose compiles' files changed since the run, before
    any is compiled: the first such file, with both digests, and how many compiles it concerns."""
    changed: dict[str, FileState] = {}
    concerned = 0
    for record in records:
        states = [s for s in file_states(record) if s.changed]
        concerned += bool(states)
        changed.update((s.path, s) for s in states)
    if changed:
        raise UsageError(f"{where}: {concerned} captured compile(s) concerned: {_changed_text(list(changed.values()))}")


def _changed_text(changed: list[FileState]) -> str:
    first = changed[0]
    now = f"{first.now[:12]} now" if first.now else "not on this machine now"
    more = f" (and {len(changed) - 1} more file(s))" if len(changed) > 1 else ""
    offer = ("--source captured compiles the text the run compiled, --source current the file as it is now"
             if first.now else "--source captured compiles the text the capture kept")
    return f"{first.path}{more} changed since the capture (sha256 {first.captured[:12]} then, {now}): {offer}"


def _layout_root(record: Compile) -> Path:
    """The folder the copy mirrors: the top package's parent for a package's module (`pkg.sub.mod` in
    .../pkg/sub/mod.py), so its relative imports resolve in the copy; else the kernel file's folder."""
    assert record.file is not None
    path = Path(record.file)
    parts = (record.module or "").split(".")
    if len(parts) > 1 and all(p.isidentifier() for p in parts) and \
            path.with_suffix("").parts[-len(parts):] == tuple(parts):
        return path.parents[len(parts) - 1]
    return path.parent


def _write_captured(capture: Capture, record: Compile, where: str) -> Path:
    assert record.file is not None
    root = _layout_root(record)
    files: dict[str, str] = {}  # the copy's files: path in it -> text
    for state in file_states(record):
        try:
            relative = Path(state.path).relative_to(root)
        except ValueError:  # a helper outside the kernel's tree: imported from where it lives
            continue
        source = capture.source(state.captured)
        if source is None or source.text is None:
            if state.path == record.file:
                why = "over the size limit when captured" if source is not None else "not in the capture"
                raise UsageError(f"{where}: --source captured: the text of {state.path} is {why}")
            continue
        files[relative.as_posix()] = source.text
    key = hashlib.sha256(json.dumps(sorted((k, hashlib.sha256(v.encode()).hexdigest()) for k, v in files.items()))
                         .encode()).hexdigest()
    folder = cache.cache_root() / CAPTURED_FOLDER / key[:2] / key
    kernel_relative = Path(record.file).relative_to(root)
    for package in list(kernel_relative.parents)[:-1]:  # the package folders: importable in the copy too
        files.setdefault((package / "__init__.py").as_posix(), "")
    try:
        for name, text in files.items():
            target = folder / name
            data = text.encode()
            if read_regular(target) != data:
                cache.make_dir(target.parent)
                cache.write_atomic(target, data)
    except OSError as error:
        raise UsageError(f"{where}: --source captured: cannot write the captured text under {folder} "
                         f"({error.strerror or error}); set TTINSPECT_CACHE_DIR to a writable folder") from None
    return folder / kernel_relative

"""Whether a captured kernel's source is still the one the run compiled, and the captured text as files.

A compile record names the kernel's file and the files of the @jit functions it calls, each with its
sha256 at the time of the run. Before a captured kernel is compiled again they are hashed here: the same
everywhere, it is compiled from its file (the same path as in the run, so even the PTX's debug info
matches); otherwise the user chooses (`--source`): `captured` writes the text the capture kept under
ttinspect's cache, in a folder of its own keyed by the files' sha256, with the same file names (and the
same package folders, so relative imports work), and compiles that copy; `current` compiles the files as
they are now. Without a choice the reference is refused in one line naming both digests.

A capture keeps only the files the compile was made of, not the rest of a package (liger_kernel's
ops/utils.py, its __init__.py). So each package folder of the copy overlays the package where it lives on
this machine (the run's folder, else the installed package of that name): its `__init__.py` adds that
folder to the package's `__path__` (the copy's files first) and runs that folder's own `__init__.py`.

Triton's own files among them (triton/language/standard.py, for `tl.cdiv`) are the release, not the user's
sources: they are left out here and compared as a release, in one line (refs/triton_release.py).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.machinery
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from ttinspect.caches import store as cache
from ttinspect.errors import UsageError
from ttinspect.files.source_files import read_regular, sha256_or_empty
from ttinspect.refs.triton_release import compare, is_release_file, recorded_root

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


def file_states(record: Compile, triton_root: str | None = None) -> list[FileState]:
    """The kernel's file first, then the other files of the user's its compile was made of, each hashed now;
    Triton's own files are the release's (refs/triton_release.py). `triton_root`: the recording machine's
    triton package as the capture's header names it (None: told by the layout)."""
    recorded = {path: digest for path, digest in record.sources.items()
                if not is_release_file(path, record, triton_root)}
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
    root = recorded_root(capture)
    changed = [s for s in file_states(record, root) if s.changed]
    if not changed or choice == "current":
        if not os.path.isfile(record.file):
            raise UsageError(f"{where}: its file {record.file} is not on this machine; --source captured compiles "
                             "the text the capture kept")
        return Path(record.file)
    if choice == "captured":
        return _write_captured(capture, record, where, root)
    raise UsageError(f"{where}: {_changed_text(changed)}")


def release_note(capture: Capture) -> str | None:
    """One line when the Triton here is another release, or another build of the same one, than the run's
    (over all the capture's compiles, so every compile of one capture says the same line once)."""
    note = compare(capture).note()
    return f"{capture.path.name}: {note}" if note else None


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
    """The first changed file and how many more. Its digest here is never printed: the capture names the
    files, so printing what they hash to now would let a capture probe any file on this machine
    (`"sources": {"/etc/passwd": ...}`); the captured digest is the capture's own, and is shown."""
    first = changed[0]
    now = "its text here differs" if first.now else "not on this machine now"
    more = f" (and {len(changed) - 1} more file(s))" if len(changed) > 1 else ""
    offer = ("--source captured compiles the text the run compiled, --source current the file as it is now"
             if first.now else "--source captured compiles the text the capture kept")
    return f"{first.path}{more} changed since the capture (sha256 {first.captured[:12]} then; {now}): {offer}"


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


def _write_captured(capture: Capture, record: Compile, where: str, triton_root: str | None) -> Path:
    assert record.file is not None
    root = _layout_root(record)
    files: dict[str, str] = {}  # the copy's files: path in it -> text
    for state in file_states(record, triton_root):
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
    kernel_relative = Path(record.file).relative_to(root)
    for package in list(kernel_relative.parents)[:-1]:  # the package folders: importable in the copy too
        init = (package / "__init__.py").as_posix()
        files[init] = _overlay_init(files.get(init), _living_folder(root, package))
    key = hashlib.sha256(json.dumps(sorted((k, hashlib.sha256(v.encode()).hexdigest()) for k, v in files.items()))
                         .encode()).hexdigest()
    folder = cache.cache_root() / CAPTURED_FOLDER / key[:2] / key
    for name in files:  # the reader admits only absolute normalized paths (capture/schema.py); checked again
        if Path(name).is_absolute() or ".." in Path(name).parts:  # where it writes: never outside the folder
            raise UsageError(f"{where}: --source captured: the captured path {name!r} leaves its folder")
    _check_layout(files, root, folder, where)
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


# what a file system takes: a name of at most 255 bytes, a path of at most 4,095 (Linux's NAME_MAX, PATH_MAX)
_NAME_MAX, _PATH_MAX = 255, 4095


def _check_layout(files: dict[str, str], root: Path, folder: Path, where: str) -> None:
    """That the captured files can be laid out under `folder` as the run had them: no file is also a folder
    of another (`prog.py` and `prog.py/x.py`, which no file system holds), and no name or path is longer than
    a file system takes. Said as what it is — a capture whose files cannot be laid out — before anything is
    written, not as a cache that cannot be written."""
    def cannot(why: str) -> UsageError:
        return UsageError(f"{where}: --source captured: the capture's files cannot be laid out: {why}")

    def short(path: Path | str) -> str:  # a path of thousands of characters, in a one-line message
        text = str(path)
        return text if len(text) <= 120 else f"{text[:60]}...{text[-50:]} ({len(text):,} characters)"

    names = set(files)
    for name in sorted(names):
        parents = [parent.as_posix() for parent in Path(name).parents][:-1]
        clash = next((parent for parent in parents if parent in names), None)
        if clash is not None:
            raise cannot(f"{short(root / clash)} is a file and also the folder of {short(root / name)}")
        long = next((part for part in Path(name).parts if len(part.encode()) > _NAME_MAX), None)
        if long is not None:
            raise cannot(f"{short(root / name)} has a name of {len(long.encode())} bytes (a file system takes "
                         f"{_NAME_MAX})")
        if len(str(folder / name).encode()) > _PATH_MAX:
            raise cannot(f"{short(root / name)} is too long a path to write under {folder}")


def _living_folder(root: Path, package: Path) -> Path | None:
    """Where the package folder `package` (relative to the copy) lives on this machine: in the run's
    folder, else in the installed package of that name (a capture brought from another machine)."""
    if (root / package / "__init__.py").is_file():
        return root / package
    top, *inner = package.parts
    mine = os.path.realpath(cache.cache_root() / CAPTURED_FOLDER)
    search = [p for p in sys.path if not os.path.realpath(p or ".").startswith(mine)]
    spec = importlib.machinery.PathFinder.find_spec(top, search)
    for location in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(location).joinpath(*inner)
        if (folder / "__init__.py").is_file():
            return folder
    return None


def _overlay_init(captured: str | None, lives: Path | None) -> str:
    """The copy's `__init__.py` of one package folder: the captured text, if the compile was made of it
    too, else that of the folder where the package lives, run from there; either way that folder joins
    the package's `__path__`, after the copy's own."""
    if lives is None:
        return captured or ""
    overlay = f"__path__.append({str(lives)!r})"
    if captured is not None:  # its own text runs; the overlay after it (before would shift its lines)
        return captured.rstrip("\n") + "\n" + overlay + "  # ttinspect: the files the capture did not keep\n"
    init = str(lives / "__init__.py")
    return (f"# Written by ttinspect (refs/captured_source.py): the files a capture kept of this package are in\n"
            f"# this folder; the others, and this __init__.py's own code, are where the package lives.\n"
            f"{overlay}\n"
            f"__file__ = {init!r}\n"
            f"exec(compile(__import__('pathlib').Path(__file__).read_bytes(), __file__, 'exec'))\n")


def overlaid_folders(init: Path) -> list[str]:
    """The folders a copy's `__init__.py` adds to its package's `__path__` — its module-level
    `__path__.append('/site-packages/liger_kernel/ops')` statements (none for any other file): for a package
    whose __init__ is not run (refs/loading.py), so the files the capture did not keep are found."""
    try:
        tree = ast.parse(init.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return []
    return [node.value.args[0].value for node in tree.body
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and len(node.value.args) == 1
            and ast.unparse(node.value.func) == "__path__.append" and isinstance(node.value.args[0], ast.Constant)
            and isinstance(node.value.args[0].value, str)]

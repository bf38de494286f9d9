"""Files the user names for ttinspect to write (`html -o`, `dump --all --out DIR`, `--plot`): ttinspect
writes only regular files, replaces one only with `--force`, and never replaces what is not a regular file.

The rules, as careful tools keep them (git, rsync, uv): a symbolic link at the path — dangling or not — a
directory, a named pipe, a device or a socket is refused in one line whatever `--force` says (writing
through a link would change a file the user did not name; replacing a device node or a FIFO destroys
something that was never ours). Every path is checked before any work starts, and every file is written
atomically (a temporary file in the same folder, renamed over the path), so a failure leaves whatever was
there untouched and a reader never sees half a file. Errors name the user's path, never the temporary
file's.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Iterable

from ttinspect.errors import TTInspectError, UsageError

_SPECIAL = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
            (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


# The formats matplotlib's savefig writes (by the file's suffix): a plot path is checked against them before
# the work that draws it, not after.
IMAGE_SUFFIXES = ("png", "pdf", "svg", "svgz", "jpg", "jpeg", "ps", "eps", "tif", "tiff", "webp", "pgf", "raw",
                  "rgba")


class WriteError(TTInspectError):
    """The system refused to write a file the user named (permissions, a full disk, a read-only folder)."""


def check_output(path: str | os.PathLike, *, force: bool = False, option: str = "--out",
                 suffixes: tuple[str, ...] | None = None) -> Path:
    """The path to write (absolute), or UsageError in one line: an empty path, a missing folder, anything but
    a regular file at the path, an existing regular file without `force`, a suffix not among `suffixes`."""
    if str(path).strip() == "":
        raise UsageError(f"{option}: the output path is empty")
    if str(path).endswith(os.sep):
        raise UsageError(f"{path}: ends with {os.sep}, so it names a folder; give a file name")
    given = Path(path).expanduser()  # the user's spelling, in every message
    out = Path(os.path.abspath(given))  # what is returned is absolute: what runs later cannot move it
    try:
        mode = out.lstat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:  # a folder on the way that is a file, a name too long, no permission
        raise UsageError(f"cannot write {given}: {error.strerror or error}") from None
    if mode is not None:
        refusal = not_a_regular_file(given, mode)
        if refusal:
            raise UsageError(f"{given} is {refusal}; ttinspect writes only regular files (nothing was written)")
        if not force:
            raise UsageError(f"{given} already exists; --force overwrites it")
    if not out.parent.is_dir():
        raise UsageError(f"cannot write {given}: the directory {given.parent} does not exist")
    if suffixes is not None and out.suffix.lstrip(".").lower() not in suffixes:
        raise UsageError(f"{option} {path}: the file's suffix names its format; one of: "
                         + ", ".join(f".{s}" for s in suffixes))
    _probe(out, given)
    return out


def _probe(out: Path, given: Path) -> None:
    """Make and remove a temporary file beside `out`, so that a folder the system will not let us write
    (read-only, /proc) is said before any work starts, not after it."""
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{out.name[:40]}.", suffix=".probe", dir=out.parent)
    except OSError as error:
        raise WriteError(f"cannot write {given}: {error.strerror or error}") from None
    os.close(handle)
    _remove(temporary)


def check_output_folder(folder: Path, stages: Iterable[str]) -> Path:
    """The folder `dump --all --out` writes every stage into, checked before any compile (absolute): a link
    to a folder is the user's choice, a link to nothing or to itself, a file or a special file at the path
    is refused in one line; the folder (made if missing) must be writable, and no file ttinspect could
    write there (`kernel.<stage>` for each of `stages`, metadata.json) may be a link, a FIFO or a device."""
    if str(folder).strip() in ("", "."):
        folder = Path(".")
    given = folder.expanduser()
    out = Path(os.path.abspath(given))
    if out.is_symlink() and not out.exists():
        raise UsageError(f"--out {given} is a symbolic link to {os.readlink(out)}, which does not exist or loops")
    if out.exists() and not out.is_dir():
        try:
            mode = out.lstat().st_mode
        except OSError:
            mode = stat.S_IFREG
        raise UsageError(f"--out {given} is {not_a_regular_file(given, mode) or 'a file'}, not a folder")
    for parent in (out, *out.parents):  # the first folder that exists: a file on the way is said now
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"--out {given}: {parent} is a file, not a folder")
            _probe(parent / "kernel", given)  # the folder, or where it will be made, must be writable
            break
    check_output_dir(out, [f"kernel.{stage}" for stage in stages] + ["metadata.json"], force=True)
    return out


def check_output_dir(folder: Path, names: list[str], *, force: bool = False) -> list[Path]:
    """The files `names` inside `folder` (made if missing), each checked as check_output does; every clash
    is named at once. A folder that exists must be a directory (a link to one is the user's choice)."""
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder} is not a directory (--out names the folder to write every stage into)")
    paths = [folder / name for name in names]
    refused, clashes = [], []
    for path in paths:
        try:
            mode = path.lstat().st_mode
        except OSError:
            continue
        refusal = not_a_regular_file(path, mode)
        if refusal:
            refused.append(f"{path.name} is {refusal}")
        else:
            clashes.append(path.name)
    if refused:
        raise UsageError(f"{folder}: {'; '.join(refused)}; ttinspect writes only regular files (nothing was written)")
    if clashes and not force:
        raise UsageError(f"{folder} already has {', '.join(clashes)}; choose another --out or pass --force")
    return paths


def not_a_regular_file(path: Path, mode: int) -> str | None:
    """What is at `path` (its lstat mode) when it is not a regular file, in words; None for a regular file."""
    if stat.S_ISLNK(mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        dangling = "" if path.exists() else ", which does not exist"
        return f"a symbolic link to {target}{dangling}"
    if stat.S_ISDIR(mode):
        return f"a directory (give a file name, e.g. {path / 'out'})"
    for test, what in _SPECIAL:
        if test(mode):
            return what
    return None if stat.S_ISREG(mode) else "not a regular file"


def write_atomically(out: Path, data: str | bytes, *, force: bool) -> None:
    """Write `data` to `out` through a temporary file in the same folder. Raises WriteError naming `out`;
    `out` is then as it was. With `force`, a regular file at `out` is replaced (anything else is refused);
    without it, a file that appeared at `out` since the check is never replaced: the temporary file is
    published with a hard link, which fails if the name is taken."""
    payload = data.encode() if isinstance(data, str) else data
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{out.name[:40]}.", suffix=".tmp", dir=out.parent)
    except OSError as error:
        raise WriteError(f"cannot write {out}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
        os.chmod(temporary, _file_mode(out))
        try:
            mode = out.lstat().st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            raise UsageError(f"{out} is {not_a_regular_file(out, mode)}; ttinspect writes only regular files "
                             "(nothing was written)")
        if mode is not None and not force:
            raise UsageError(f"{out} appeared while ttinspect worked; --force overwrites it (nothing was written)")
        if force:
            os.replace(temporary, out)
        else:
            _publish_new(temporary, out)
    except OSError as error:
        _remove(temporary)
        raise WriteError(f"cannot write {out}: {error.strerror or error}") from None
    except BaseException:
        _remove(temporary)
        raise


def _publish_new(temporary: str, out: Path) -> None:
    """Give the finished file its name only if the name is free (a hard link fails on an existing name;
    where links are not supported, the rename after a last look)."""
    try:
        os.link(temporary, out)
    except FileExistsError:
        raise UsageError(f"{out} appeared while ttinspect worked; --force overwrites it (nothing was written)") \
            from None
    except OSError:  # a filesystem without hard links
        if os.path.lexists(out):
            raise UsageError(f"{out} appeared while ttinspect worked; --force overwrites it") from None
        os.replace(temporary, out)
        return
    _remove(temporary)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _file_mode(out: Path) -> int:
    """An overwritten file keeps its mode; a new one gets what open() would give it (0o666 less umask),
    not mkstemp's private 0o600."""
    try:
        return out.stat().st_mode & 0o777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask

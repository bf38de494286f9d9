"""Writing the page: the output path is checked before anything is compiled, and the file is written
atomically (a temporary file in the same folder, then renamed over), so that a failure leaves whatever
was there untouched and a reader never sees half a page."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..errors import UsageError


def check_output(path: str | os.PathLike, *, force: bool = False) -> Path:
    """The path to write, or UsageError in one line: a missing folder, a folder, or an existing file
    without `force`."""
    out = Path(path).expanduser()
    if str(path).strip() == "":
        raise UsageError("the output path is empty")
    if out.is_dir():
        raise UsageError(f"{out} is a directory; give a file name, e.g. {out / 'kernel.html'}")
    folder = out.parent
    if not folder.is_dir():
        raise UsageError(f"cannot write {out}: the directory {folder} does not exist")
    if out.exists() and not force:
        raise UsageError(f"{out} already exists; --force overwrites it")
    return out


def write_atomically(out: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temporary, _file_mode(out))
        os.replace(temporary, out)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _file_mode(out: Path) -> int:
    """An overwritten file keeps its mode; a new one gets what open() would give it (0o666 less umask),
    not mkstemp's private 0o600."""
    try:
        return out.stat().st_mode & 0o777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask

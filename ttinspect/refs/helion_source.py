"""The Triton source a Helion kernel generates, kept as a file: what ttinspect compiles, and the map from its
lines back to the Helion kernel's own.

Helion writes, before the code it generates for a line of the kernel, a comment naming that line —
`# src[add.py:10]: out[tile] = x[tile] + y[tile]`. Each code line of the generated file is the last such
line before it (in its function). The file is kept as Helion wrote it, each code line of its @triton.jit
functions followed by `  # <- add.py:10`, so every place that quotes a line of the kernel file (`dump
--source`, `--by-line`, the HTML page, a finding's evidence) says the Helion line it came from; the line
numbers, and so every stage's locations, stay Helion's. It is written under ttinspect's cache
(`<cache>/helion-generated/<key[:2]>/<key>/<kernel file stem>_<kernel>.py`, keyed by its text), read-only:
data ttinspect made, compiled as a user's file is.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from ttinspect.caches import store as cache
from ttinspect.errors import UsageError
from ttinspect.files.source_files import read_regular

FOLDER = "helion-generated"  # under the cache root
_ORIGIN = re.compile(r"^\s*# src\[(?P<file>[^\]:]+):(?P<line>\d+)\]:")
_MARK = "  # <- "


@dataclass(frozen=True)
class Origin:
    file: str  # as Helion names it (the kernel file's name), or the full path where it is the kernel's file
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def origins(text: str, kernel_file: str | None = None) -> dict[int, Origin]:
    """Generated line (1-based) -> the Helion line it was generated for, for every code line that follows a
    `# src[...]` comment in its function (a `def` at column 0 starts a function afresh). `kernel_file`: the
    full path of the file Helion names by its base name."""
    out: dict[int, Origin] = {}
    current: Origin | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        match = _ORIGIN.match(line)
        if match is not None:
            name = match["file"]
            full = kernel_file if kernel_file and os.path.basename(kernel_file) == name else name
            current = Origin(full, int(match["line"]))
        elif line.startswith(("def ", "@")) or not line.strip():
            current = None if line.startswith(("def ", "@")) else current
        elif current is not None and not line.lstrip().startswith("#"):
            out[number] = current
    return out


def _jit_lines(text: str) -> set[int]:
    """The lines of the file's @triton.jit functions' bodies (the host function's are not compiled)."""
    lines, inside, decorated = set(), False, False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("@"):
            decorated = decorated or "jit" in line
        elif line.startswith("def "):
            inside, decorated = decorated, False
        elif line and not line[0].isspace():
            inside = False
        elif inside:
            lines.add(number)
    return lines


def annotated(text: str, kernel_file: str | None = None) -> str:
    """Helion's text with each compiled code line followed by the Helion line it came from (a comment at its
    end: no line moves, no column changes)."""
    found = origins(text, kernel_file)
    jit = _jit_lines(text)
    shown = {number: Origin(os.path.basename(o.file), o.line) for number, o in found.items() if number in jit}
    return "\n".join(f"{line}{_MARK}{shown[number]}" if number in shown and _MARK not in line else line
                     for number, line in enumerate(text.splitlines(), start=1)) + "\n"


def origin_of_line(path: str | Path, line: int) -> str | None:
    """`add.py:10` for a line of a generated file this module wrote, else None."""
    data = read_regular(path)
    if data is None:
        return None
    lines = data.decode("utf-8", "replace").splitlines()
    if not 1 <= line <= len(lines) or _MARK not in lines[line - 1]:
        return None
    return lines[line - 1].rpartition(_MARK)[2].strip() or None


def write_generated(text: str, kernel_file: Path, kernel: str) -> Path:
    """The generated text, annotated, as a read-only file in ttinspect's cache; the same text, the same file."""
    data = annotated(text, str(kernel_file)).encode()
    key = hashlib.sha256(data).hexdigest()
    name = f"{kernel_file.stem}_{kernel}.py" if kernel_file.stem.isidentifier() else f"helion_{kernel}.py"
    target = cache.cache_root() / FOLDER / key[:2] / key / name
    if read_regular(target) == data:
        return target
    try:
        cache.make_dir(target.parent)
        cache.write_atomic(target, data)
        os.chmod(target, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)  # data ttinspect made: not to be edited
    except OSError as error:
        raise UsageError(f"cannot write the Triton Helion generated for {kernel} under {target.parent} "
                         f"({error.strerror or error}); set TTINSPECT_CACHE_DIR to a writable folder") from None
    return target

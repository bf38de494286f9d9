"""The files a kernel is made of, read safely: what keys a compile of a user's file.

A cache key must change when the kernel's source changes, and reading the files for it must never hang or
fail on something the user did not ask about. So only *regular* files are read (a FIFO named `x.py`
would block `read()` forever; a folder `dir.py`, a dangling link or a link loop is not a source), and only
the files the kernel's file imports from its own folder tree, found statically in its `import`
statements — not every sibling `*.py` (an unrelated sibling edit does not force a recompile, and an
unrelated special file cannot break the command). Helpers called as `@triton.jit` functions are covered
by Triton's own cache key as well (engine.build_function adds it).
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import os
import re
import stat
from pathlib import Path
from typing import Any

_MAX_FILES = 200  # a folder tree of helpers, not a whole package index: bounded work for any input


def read_regular(path: Path | str) -> bytes | None:
    """The bytes of a regular file (links followed), else None: missing, a folder, a FIFO, a device, a
    socket, a link loop or unreadable. Never blocks on a special file: it is checked before it is opened,
    and opened non-blocking in case it was swapped meanwhile."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks: list[bytes] = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)


def sha256_or_empty(path: Path | str) -> str:
    data = read_regular(path)
    return hashlib.sha256(data).hexdigest() if data is not None else ""


def sibling_digests(path: Path) -> dict[str, str]:
    """A shipped kernel's file and its sibling .py files (ttinspect's own kernels folder), by content;
    regular files only."""
    files = {f.name: read_regular(f) for f in sorted(path.parent.glob("*.py"))}
    return {name: hashlib.sha256(data).hexdigest() for name, data in files.items() if data is not None}


def local_imports(path: Path) -> list[Path]:
    """`path` and every module of its folder tree it imports, directly or through those modules, by its
    `import` / `from ... import` statements (absolute names resolved against the file's folder, the way
    running it as a script does; relative ones against the importing module's folder). Regular files only."""
    root = path.parent
    found: dict[Path, None] = {}
    queue = [path]
    while queue and len(found) < _MAX_FILES:
        current = queue.pop(0)
        if current in found:
            continue
        data = read_regular(current)
        if data is None:
            continue
        found[current] = None
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # not Python: keyed by its content only
        for module, level in _imported_names(tree):
            base = root if level == 0 else _parent(current, level)
            for candidate in _module_files(base, module):
                if candidate not in found:
                    queue.append(candidate)
    return list(found)


def digests(path: Path) -> dict[str, str]:
    """name (relative to the kernel's folder) -> sha256, for the kernel's file and its local imports."""
    root = path.parent
    out = {}
    for file in local_imports(path):
        data = read_regular(file)
        if data is not None:
            out[os.path.relpath(file, root)] = hashlib.sha256(data).hexdigest()
    return out


def _imported_names(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, 0
        elif isinstance(node, ast.ImportFrom):
            head = node.module or ""
            yield head, node.level
            for alias in node.names:  # `from pkg import helpers`: helpers may be a module
                if alias.name != "*":
                    yield f"{head}.{alias.name}" if head else alias.name, node.level


def _parent(file: Path, level: int) -> Path:
    folder = file.parent
    for _ in range(level - 1):
        folder = folder.parent
    return folder


def _module_files(base: Path, dotted: str) -> list[Path]:
    """The files `import dotted` loads from `base` (each package's __init__.py on the way, and the module)."""
    files: list[Path] = []
    folder = base
    parts = [p for p in dotted.split(".") if p]
    for index, part in enumerate(parts):
        if not part.isidentifier():
            return files
        package = folder / part
        init = package / "__init__.py"
        if is_regular_file(init):
            files.append(init)
        if index == len(parts) - 1 and is_regular_file(folder / f"{part}.py"):
            files.append(folder / f"{part}.py")
        folder = package
    return files


def is_regular_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


_DEF = re.compile(r"\s*(async\s+)?def\s")


def def_line(function: Any) -> int | None:
    """The line of a function's `def` itself (what Triton's IR locations point at; co_firstlineno is the first
    decorator's)."""
    try:
        lines, start = inspect.getsourcelines(function)
    except (OSError, TypeError):
        code = getattr(function, "__code__", None)
        return code.co_firstlineno if code is not None else None
    for offset, line in enumerate(lines):
        if _DEF.match(line):
            return start + offset
    return start

"""What a tool call may touch: the client's roots (MCP roots, else the server's working directory), every file
path a call names — a kernel file, a module's file, a capture, an output folder — resolved (links followed)
and refused in one line when it lies outside them; and the agent's drafts, kernel code passed as text, kept
in a scratch folder as files named by their content."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Iterable, Sequence

from ttinspect.errors import UsageError

_PY_PATH = re.compile(r"(?<=\.py)(?=[:@]|$)")  # where a file reference's path ends
SCRATCH_NAME = ".ttinspect-mcp"  # in the first root: ignored by git (it holds a .gitignore of `*`)


def real(path: str | os.PathLike) -> Path:
    return Path(os.path.realpath(os.path.expanduser(os.fspath(path))))


def inside(path: str | os.PathLike, roots: Iterable[str | os.PathLike]) -> bool:
    target = real(path)
    for root in roots:
        base = real(root)
        if target == base or base in target.parents:
            return True
    return False


def check_path(path: str | os.PathLike, roots: Sequence[str], what: str) -> Path:
    """`path` resolved (relative to the working directory, the first root); outside every root: one line."""
    if not inside(path, roots):
        shown = ", ".join(roots) if roots else "(none)"
        raise UsageError(f"{what} {os.fspath(path)} is outside the client's roots ({shown}): the MCP server reads "
                         "and writes only under them")
    return real(path)


def check_reference(ref: str, roots: Sequence[str], source: str | None = None) -> None:
    """Refuse a reference whose code would run from outside the roots: a file or module elsewhere, a capture
    elsewhere, or a captured compile whose source file on this machine is elsewhere (unless the capture's kept
    text is asked for). Shipped variants and Triton cache entries run no user code from a path."""
    # the resolver's kinds: loaded in the worker only (the server's own process stays light)
    from ttinspect.refs.captured import capture_path
    from ttinspect.refs.kinds import kind_of, parse_source_ref
    from ttinspect.refs.resolver import split_triton

    ref, _ = split_triton(ref)
    kind = kind_of(ref)
    if kind == "file":  # refused by its path as written before anything looks at the file
        check_path(_PY_PATH.split(ref, maxsplit=1)[0] if ".py" in ref else re.split(r"[:@]", ref, maxsplit=1)[0],
                   roots, "kernel file")
    if kind in ("file", "module"):
        found = parse_source_ref(ref)
        check_path(found.path, roots, "kernel file")
        if found.package is not None:  # its package's __init__ files run first: the whole package must be in
            check_path(found.package.package_folder, roots, f"package {found.package.top} of")
    elif kind == "capture":
        path = capture_path(ref)
        if path is None:
            return
        check_path(path, roots, "capture")
        if source != "captured":
            _check_captured_sources(ref, roots)


def _check_captured_sources(ref: str, roots: Sequence[str]) -> None:
    from ttinspect.refs.capture_listing import list_capture  # the capture's reader: loaded for a capture only

    for row in list_capture(ref.split("@", 1)[0])["compiles"]:
        file = row.get("file")
        if file and Path(file).is_file() and not inside(file, roots):
            raise UsageError(f"captured kernel {row.get('ref')}: its source file {file} is outside the client's "
                             "roots; pass source=\"captured\" to compile the text the capture kept")


def scratch_folder(roots: Sequence[str]) -> Path | None:
    """The drafts' folder in the first root, made on first use, ignored by git; None when it cannot be made
    (a read-only root): the server then uses a private temporary folder."""
    if not roots:
        return None
    folder = Path(roots[0]) / SCRATCH_NAME
    try:
        folder.mkdir(exist_ok=True)
        ignore = folder / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# ttinspect mcp: the agent's kernel drafts, named by content\n*\n")
        return folder
    except OSError:
        return None


def write_draft(code: str, scratch: str | os.PathLike) -> Path:
    """`code` as `SCRATCH/<sha256 prefix>/draft_<prefix>.py`: the same text is the same file (so the compile cache
    and line numbers carry over between calls), written whole before it is seen; two drafts have two names (a
    diff's sides are told apart by their labels)."""
    if not code.strip():
        raise UsageError("`code` is empty: pass the text of a Python file that defines the kernel")
    digest = hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    folder = Path(scratch) / digest
    path = folder / f"draft_{digest[:8]}.py"
    if path.is_file() and path.read_text(encoding="utf-8", errors="replace") == code:
        return path
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{path.name}.{os.getpid()}.tmp"
    temporary.write_text(code, encoding="utf-8")
    os.replace(temporary, path)
    return path


def draft_reference(kernel: str | None, code: str, scratch: str | os.PathLike) -> str:
    """`SCRATCH/.../draft_<hash>.py:KERNEL[...]` for code passed as text; `kernel` names the kernel or example in
    it."""
    if not kernel or not kernel.strip():
        raise UsageError("with `code`, `kernel` names the kernel (or declared example) in it, e.g. \"matmul\"")
    name = kernel.strip()
    if "/" in name.split(":", 1)[0] or name.split(":", 1)[0].endswith(".py"):
        raise UsageError(f"with `code`, `kernel` is a name in that code (\"matmul\"), not a file: {name!r}")
    return f"{write_draft(code, scratch)}:{name}"

"""An installed package's compiled CUDA extension that a laptop install does not have, stood in for in a whole
run (`capture --as`): the package imports it at module level (mamba-ssm's `__init__` reaches `import
selective_scan_cuda`, built only where CUDA is), so without it the program cannot import the package at all,
though the Triton kernels it wants never touch the extension.

A missing module is stood in for only when every one of these holds, each read from what is installed:
- the line importing it is in a file an installed distribution's RECORD lists (a library's, not the user's
  script, checkout or editable install: a name the user's own code misspelt fails as it would);
- the import is not guarded (`try: ... except ImportError`, `contextlib.suppress(ImportError)`): a guarded
  one is an optional dependency the library handles itself, and must fail for it to take its fallback;
- the name is no requirement the distribution declares (`Requires-Dist`): a dependency to install;
- the distribution names it as its own (top_level.txt, or a file of it in RECORD), or the name is a compiled
  extension's by the convention torch's `cpp_extension` builds follow (`_C`, `*_cuda`, `*_cpp`, `*_ext`,
  `*_hip`, `*_cuda_ext`), or it is a submodule of the distribution's own installed package that no file of
  the install holds (`from ..cuda import ...` where setup.py builds `CUDAExtension("pkg.cuda")`: a build
  product the install skipped, or a file the wheel lacks — said as such).
Where the first three hold and the last cannot be told, the import fails as it would and a note says why it
was not stood in (unknown: nothing installed says it is a compiled extension).

The stand-in says once on stderr what it is; its names import (`from pkg.cuda import fwd`), and any use of one
(a call, an attribute) raises one line naming the line that used it (a refusal, like the virtual device's), so
a program that calls the extension stops there (stand_in_module.py). An extension the program builds at run time
(torch.utils.cpp_extension.load) is stood in for by runtime_extension.py, installed with this finder.
"""

from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import os
import re
import sys
import types
from functools import lru_cache
from pathlib import Path
from typing import Any

from ttinspect.virtual import runtime_extension
from ttinspect.virtual.caught_around import exception_names, suppressed_names
from ttinspect.virtual.installed_files import distribution_of, within
from ttinspect.virtual.stand_in_module import stand_in

# torch cpp_extension's names: `pkg._C`, `name_cuda`, `name_cpp`, `name_ext`, ... (a bare `cuda` is a package)
_EXTENSION_NAME = re.compile(r"^(_C|.+_(C|cuda|cpp|ext|hip|cuda_ext|cpp_ext))$")
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
_HERE = str(Path(__file__).resolve())
_IMPORTLIB = str(Path(importlib.__file__).resolve().parent) + os.sep


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _importer() -> tuple[str, int] | None:
    """The file and line of the statement importing (past the import system's frames and importlib's)."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith("<frozen ") and name != _HERE and not name.startswith(_IMPORTLIB):
            return (name, frame.f_lineno) if os.path.isabs(name) else None
        frame = frame.f_back  # type: ignore[assignment]
    return None


@lru_cache(maxsize=1024)
def _statement(path: str, line: int) -> tuple[bool, bool]:
    """(whether `path:line` is an import statement, whether it sits in a try that catches ImportError or a
    `with` that suppresses it). A probe (`importlib.util.find_spec`, an `import_module` call) is no import
    statement: a library asking whether a module exists must hear that it does not. A file that cannot be
    read is taken as guarded: nothing is stood in on a guess."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return False, True

    def visit(node: ast.AST, guarded: bool) -> tuple[bool, bool] | None:
        start, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        if isinstance(node, ast.stmt) and start is not None and end is not None and not start <= line <= end:
            return None
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return True, guarded
        if isinstance(node, ast.Try):
            catching = guarded or any(exception_names(h.type) & _IMPORT_ERRORS for h in node.handlers)
            parts: list[tuple[list[Any], bool]] = [(node.body, catching), (node.handlers, guarded),
                                                   (node.orelse, guarded), (node.finalbody, guarded)]
            return next((found for children, flag in parts for child in children
                         if (found := visit(child, flag)) is not None), None)
        if isinstance(node, ast.With) and suppressed_names(node) & _IMPORT_ERRORS:
            guarded = True
        if isinstance(node, ast.stmt) and not hasattr(node, "body"):
            return False, guarded
        return next((found for child in ast.iter_child_nodes(node) if (found := visit(child, guarded)) is not None),
                    None)
    return visit(tree, False) or (False, False)


@lru_cache(maxsize=1024)
def _names(path: str, line: int, fullname: str) -> bool:
    """Whether the import statement at `path:line` names `fullname` (or a package of it, or a module in it);
    a relative import is taken to (its package is not resolved here)."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return True
    statements = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                  and node.lineno <= line <= (node.end_lineno or 0)]  # `import a; import b`: both on the line
    if not statements:
        return True
    for node in statements:
        if isinstance(node, ast.ImportFrom) and node.level:
            return True
        bases = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [f"{node.module}.{a.name}" for a in node.names] + [node.module or ""]
        if any(base == fullname or fullname.startswith(base + ".") or base.startswith(fullname + ".")
               for base in bases if base):
            return True
    return False


def _handled_above(dist: Any) -> bool:
    """Whether a frame further out in the library itself (the import of its module that imports it, a call of
    its own) catches ImportError: the library then has a way on without the module, which a stand-in would
    take from it. A test runner's guard around importing a test file (pytest's), or the user's own, is no
    fallback of the library's: on the GPU the library imports, and so it does here."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        ours = name == _HERE or name.startswith(_IMPORTLIB)
        if os.path.isabs(name) and not ours and _statement(name, frame.f_lineno)[1] \
                and _same_distribution(distribution_of(name), dist):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def _same_distribution(one: Any, other: Any) -> bool:
    return one is not None and _normalized(one.metadata["Name"]) == _normalized(other.metadata["Name"])


def _declared_requirement(dist: Any, top: str) -> bool:
    names = {_normalized(re.split(r"[\s;<>=!~\[(]", req, maxsplit=1)[0]) for req in dist.requires or ()}
    return _normalized(top) in names


def _its_own(dist: Any, fullname: str) -> bool:
    """The distribution names the module as its own (top_level.txt, RECORD), or the name is an extension's."""
    stem = fullname.replace(".", "/")
    listed = "." not in fullname and fullname in (dist.read_text("top_level.txt") or "").split()
    in_record = any(str(f).startswith((stem + ".", stem + "/")) for f in dist.files or ())
    return listed or in_record or bool(_EXTENSION_NAME.search(fullname.rpartition(".")[2]))


def _missing_from_its_package(dist: Any, fullname: str) -> bool:
    """`pkg.sub` where `pkg` is the distribution's own package, installed from its RECORD, and `sub` is in no
    file of it: a module the package's own code imports unguarded that its install does not have is a build
    product the install skipped (`CUDAExtension("pkg.cuda")`, built only where CUDA is) or a file the wheel
    lacks — the package cannot import without it either way."""
    parent = fullname.rpartition(".")[0]
    if not parent:
        return False
    top = parent.partition(".")[0]
    stem = parent.replace(".", "/") + "/"
    own_top = top in (dist.read_text("top_level.txt") or "").split() or \
        any(str(f).startswith(top + "/") for f in dist.files or ())
    return own_top and any(str(f).startswith(stem) for f in dist.files or ())


class _Loader(importlib.abc.Loader):
    def __init__(self, said: str):
        self.said = said

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return stand_in(spec.name, self.said)

    def exec_module(self, module: types.ModuleType) -> None:
        print(f"ttinspect: note: {self.said}: stood in; any use fails naming its line", file=sys.stderr)


class StandInFinder(importlib.abc.MetaPathFinder):
    """Last on sys.meta_path: asked only for a module no real finder found."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        where = _importer()
        if where is None:
            return None
        if _statement(*where) != (True, False):  # first: a probe costs an AST read, not a RECORD's
            return None
        if not _names(*where, fullname):
            # the statement imports another module, whose compiled code (Cython: no Python frame of its own)
            # asked for this one: its guard, if any, cannot be read, so nothing is stood in nor said
            return None
        dist = distribution_of(where[0])
        if dist is None or _handled_above(dist) or _declared_requirement(dist, fullname.partition(".")[0]):
            return None
        shown = f"{within(dist, where[0])}:{where[1]}"
        name = dist.metadata["Name"]
        if _its_own(dist, fullname):
            said = f"{fullname} is a compiled extension of {name} not installed here (imported at {shown})"
        elif _missing_from_its_package(dist, fullname):
            said = (f"{fullname} is a module of {name}'s own package that its install lacks (imported at {shown}; a "
                    "compiled extension the install skipped building, or a file missing from the wheel)")
        else:
            print(f"ttinspect: note: {fullname} (imported at {shown}, {name}) is not installed; not stood in: "
                  "unknown whether it is a compiled extension of it (nothing installed says so; a dependency "
                  "is installed with pip)", file=sys.stderr)
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader(said))


def install() -> None:
    """Put the finder last on sys.meta_path (once); an extension the program builds at run time is the same
    class of module, stood in from here too (runtime_extension.py)."""
    if not any(isinstance(finder, StandInFinder) for finder in sys.meta_path):
        sys.meta_path.append(StandInFinder())
    runtime_extension.install()

"""Where a kernel's module lives, found without running it: a module reference `pkg.mod:kernel` is
located on `sys.path` (and the current directory) as Python's import would find it, and a file path inside
a package (a folder chain holding `__init__.py`) is named as that package's module — so that its relative
imports work when it is loaded, and so that the warm path can key the file without importing anything.

    liger_kernel.ops.rms_norm:_rms_norm_forward_kernel     -> .../liger_kernel/ops/rms_norm.py
    ~/src/fla/fla/ops/gla/chunk.py:chunk_gla_fwd_kernel_o   -> module fla.ops.gla.chunk, root ~/src/fla
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ttinspect.errors import UsageError
from ttinspect.refs.caller_packages import use_caller_packages

# liger_kernel.ops.rms_norm, fla.ops.gla.chunk: dotted Python identifiers (a single name is a module too,
# when it is not a shipped variant's: refs/kinds.py decides)
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
# What follows the module: [:NAME][:KEY=VALUE,...][@ARCH], as for a file reference
_MODULE_REF = re.compile(r"^(?P<module>[A-Za-z_][\w.]*?)(?::(?P<name>[^\W\d]\w*))?"
                         r"(?::(?P<inline>[^@]*))?(?:@(?P<arch>[^@]+))?$")


@dataclass(frozen=True)
class PackageModule:
    """A Python file that belongs to a package: imported as `module` with `root` on sys.path."""

    module: str  # fla.ops.gla.chunk
    root: Path  # the folder holding the top package (`fla/`): what goes on sys.path
    # the reference named the module (`pkg.mod:kernel`): imported by that name; else a file's path named it,
    # and its package keeps names of its own in sys.modules (package_names.py)
    by_name: bool = False

    @property
    def top(self) -> str:
        return self.module.partition(".")[0]

    @property
    def package_folder(self) -> Path:
        """The top package's folder (every file under it belongs to the kernel's package); for a module
        that is no package's (`mymod:kernel`), its file."""
        folder = self.root / self.top
        return folder if folder.is_dir() else self.root / f"{self.top}.py"


def is_dotted_name(text: str) -> bool:
    return bool(_DOTTED.match(text))


def findable(top: str) -> bool:
    """Whether a top-level module of this name exists (nothing of it runs)."""
    return _top_spec(top) is not None


def module_head(text: str) -> str:
    """`pkg.mod` of `pkg.mod:kernel:BLOCK=64@sm_90`."""
    return re.split(r"[:@]", text, maxsplit=1)[0]


def split_module_ref(text: str) -> re.Match | None:
    match = _MODULE_REF.match(text.strip())
    return match if match and is_dotted_name(match["module"]) else None


def package_of(path: Path) -> PackageModule | None:
    """The package module a file is, when its folder holds `__init__.py` (walking up while the parents
    do) or is a namespace portion below a folder that does; None for a loose file (loaded on its own, its
    folder on sys.path, as before)."""
    use_caller_packages()  # in a toolchain's worker, an installed package is the caller's copy (caller_packages.py)
    path = Path(os.path.realpath(path))
    if path.suffix != ".py":
        return None
    if not (path.parent / "__init__.py").is_file() and \
            (_regular_package_above(path.parent) is None or not _imports_relatively(path)):
        return None  # a loose file (a script beside its helpers imports them by plain name, from its folder)
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    # folders without __init__.py below a regular package are namespace portions of it (`pkg/kernels/x.py`,
    # kernels/ without one): `import pkg.kernels.x` finds the file, and its relative imports need that name
    while not (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    if not all(part.isidentifier() for part in parts):  # `my-pkg/`: not importable by name
        return None
    return PackageModule(".".join(parts), folder)


def _imports_relatively(path: Path) -> bool:
    """Whether the file has a relative import (`from .x import y`): only a module of a package can run it, so a
    file in a namespace folder of a package that has one is that package's module, not a loose file."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return False
    return any(isinstance(node, ast.ImportFrom) and node.level for node in ast.walk(tree))


def _regular_package_above(folder: Path, depth: int = 4) -> Path | None:
    """The nearest of `folder` and its few parents that holds `__init__.py` (a regular package), or None: a
    loose file's folder and its parents have none."""
    for candidate in (folder, *list(folder.parents)[:depth]):
        if (candidate / "__init__.py").is_file():
            return candidate
    return None


def locate(module: str) -> Path:
    """The file of `module` (a module's .py, or a package's __init__.py), found as `import` would find
    it — without running any of it: only the top package is looked up through Python's finders (which
    runs nothing), the rest is a walk of its folders. The current directory counts, as for `python -c`."""
    top, _, rest = module.partition(".")
    spec = _top_spec(top)
    if spec is None:
        raise UsageError(f"{module}: no module named {top!r} on sys.path or in the current directory "
                         f"(a file is PATH.py:NAME; installed packages are found by their import name)")
    if not rest:
        if spec.origin and spec.origin.endswith(".py"):
            return Path(spec.origin)
        raise UsageError(f"{module}: {top!r} is not a Python source module ({spec.origin or 'a namespace package'});"
                         f" name the module that defines the kernel, e.g. {top}.ops.kernels")
    locations = list(spec.submodule_search_locations or [])
    if not locations:
        raise UsageError(f"{module}: {top!r} is a module, not a package: it has no submodule {rest!r}")
    parts = rest.split(".")
    for base in locations:
        folder = Path(base, *parts[:-1])
        for candidate in (folder / f"{parts[-1]}.py", folder / parts[-1] / "__init__.py"):
            if candidate.is_file():
                return candidate
    raise UsageError(f"{module}: no module {rest!r} in package {top!r} (looked in {', '.join(locations)})")


def _top_spec(top: str) -> importlib.machinery.ModuleSpec | None:
    """The top package's spec, searched in the current directory first (as `python -c` does)."""
    use_caller_packages()  # in a toolchain's worker, the reference's package is the caller's (caller_packages.py)
    if top in sys.modules and getattr(sys.modules[top], "__spec__", None) is not None:
        return sys.modules[top].__spec__
    here = importlib.machinery.PathFinder.find_spec(top, [os.getcwd()])
    if here is not None:
        return here
    try:
        return importlib.util.find_spec(top)
    except (ImportError, ValueError):  # a broken finder or a module without a spec
        return None

"""A file inside a package, named by its path (`proj/kernels/attn.py:attn_fwd`), loaded so that no other
package can stand in for it and it stands in for no other.

Package names collide: ttinspect ships a package called `kernels`, libraries have `kernels/`, `ops/`,
`utils/`, and one process may name two checkouts of one library (`diff a/kernels/x.py:k b/kernels/x.py:k`).
So while the file is imported, its package's real names (`kernels`, `kernels.*`) are its own — whatever
held them is set aside, and the modules this package loaded before are put back under them — so its relative
imports (`from .utils import x`) and its absolute imports of itself (`from kernels.utils import x`) find its
own modules, nothing runs twice, and nothing of another package is taken in their place. Afterwards its
modules are kept under keys of their own (`ttinspect_pkg_<digest of the package's folder>_kernels...`) and
the real names are given back to what held them (ttinspect's own `kernels`, the program's `utils`).

A package already imported from the same folder (by the program, or by a `pkg.mod:kernel` reference) is
used as it is; an installed package, and one ttinspect itself runs on (triton, torch), is imported by name
(refs/loading.py).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from types import ModuleType

from ttinspect.refs.loading import import_package_module, is_installed, runs_ttinspect
from ttinspect.refs.packages import PackageModule


def own_key(package: PackageModule) -> str:
    """The sys.modules key the package's top is kept under between imports: unique to its folder."""
    folder = os.path.realpath(package.package_folder)
    return f"ttinspect_pkg_{hashlib.sha256(folder.encode()).hexdigest()[:12]}_{package.top}"


def kept_as(package: PackageModule, name: str) -> str:
    """`kernels.attn` -> the key its module is kept under."""
    return own_key(package) + name[len(package.top):]


def import_package_file(package: PackageModule, path: Path) -> ModuleType:
    """Import the package's module from `package.root`, its real names its own while it runs."""
    if package.by_name or is_installed(package) or runs_ttinspect(package.top) or _same_package_loaded(package):
        return import_package_module(package, path)
    top, key = package.top, own_key(package)
    held = _take(top)
    for name, module in _family(key).items():
        sys.modules[top + name[len(key):]] = module
    root = str(package.root)
    while root in sys.path:  # first, whatever else on sys.path holds a package of the same name
        sys.path.remove(root)
    sys.path.insert(0, root)
    try:
        return import_package_module(package, path)
    finally:
        for name, module in _take(top).items():
            sys.modules[key + name[len(top):]] = module
        sys.modules.update(held)


def _same_package_loaded(package: PackageModule) -> bool:
    """Whether the name is already this package, from its own folder (the first of its `__path__`)."""
    loaded = sys.modules.get(package.top)
    own = [os.path.realpath(p) for p in list(getattr(loaded, "__path__", []) or [])[:1]]
    return os.path.realpath(package.package_folder) in own


def _family(top: str) -> dict[str, ModuleType]:
    return {name: module for name, module in list(sys.modules.items()) if name == top or name.startswith(top + ".")}


def _take(top: str) -> dict[str, ModuleType]:
    taken = _family(top)
    for name in taken:
        del sys.modules[name]
    return taken

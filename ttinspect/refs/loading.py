"""Running a user's kernel code, once per process and per device: a loose file (its folder first on
sys.path, as when run as a script) or a module of a package (imported by its dotted name with the
package's root on sys.path, so its relative imports and its absolute imports of itself work).

A package whose `__init__.py` chain fails off the GPU machine (a serving engine that asks for the GPU, a
benchmark harness that needs its plugins) must not block its kernel file: the import is retried with only
the failing `__init__.py` left unrun and nothing re-run that already loaded (init_retry.py), and one line
says so.

What the code sees of the machine is the `ImportScope` it runs in (the virtual device of a target):
modules imported under one scope are imported again under another — a file that picks its autotune configs
by the device at import gives each target its own.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import importlib.util
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Callable, ContextManager, Iterable

from ttinspect.errors import UsageError
from ttinspect.refs.import_errors import said as _said
from ttinspect.refs.import_errors import where
from ttinspect.refs.packages import PackageModule

if TYPE_CHECKING:
    from ttinspect.files.import_limit import TimeLimit


@dataclass(frozen=True)
class ImportScope:
    """What the user's code sees while it is imported: `key` names it (a target and its device
    overrides), `enter` makes it so (a virtual device)."""

    key: str = ""
    enter: Callable[[], ContextManager] = field(default=contextlib.nullcontext, compare=False)
    describe: Callable[[], str | None] = field(default=lambda: None, compare=False)  # for output headers
    questions: Callable[[], int] = field(default=lambda: 0, compare=False)  # device questions asked so far
    given: tuple[str, ...] = ()  # the --device-props keys (canonical names) the user gave

    def device_asked(self, since: int, path: str | Path) -> str | None:
        """The device to name in outputs when the code asked it something: since `since` (the question count
        before loading or planning), or while `path` was imported under this scope; None otherwise."""
        return self.describe() if self.questions() > since or asked_at_import(self, path) else None


NO_SCOPE = ImportScope()

# In another Triton's toolchain a missing dependency is installed and the request run again
# (toolchains/packages.py): a parent __init__ missing one must fail with it, not be skipped.
_dependencies_installable = [False]


def install_missing_dependencies(on: bool = True) -> None:
    _dependencies_installable[0] = on

# (scope, file) whose import asked the device something: its outputs name the device
_ASKED_AT_IMPORT: set[tuple[str, str]] = set()


def asked_at_import(scope: ImportScope, path: str | Path) -> bool:
    return (scope.key, os.path.realpath(path)) in _ASKED_AT_IMPORT

# Modules the user's code brought in, by the folder they came from (a loose file's folder, a package's
# folder): two files in different folders may both `import helpers`, and each must get its own — so before
# loading from one folder, the other folders' are forgotten; and all of them when the scope changes.
_LOADED: dict[str, set[str]] = {}
_scope_key: list[str] = [""]


def run_user_code(path: Path, own_folders: Iterable[Path], scope: ImportScope, action: Callable[[], ModuleType],
                  forget_on_error: Callable[[], None]) -> ModuleType:
    """`action` imports the user's code; everything that goes wrong becomes one line naming the file
    and line where it arose (the innermost frame in the user's own folders or package)."""
    # the machinery that contains a user's import, loaded only when one runs: a warm command that reads a
    # build from the cache never imports a user's code
    from ttinspect.files.import_limit import TimeLimit
    from ttinspect.refs.containment import ProcessExit, contained, import_own_dependencies
    from ttinspect.refs.import_warnings import warnings_quoted
    from ttinspect.refs.process_hooks import ImportRecord
    from ttinspect.refs.reregistration import repeated_registrations_skipped

    folders = [os.path.realpath(f) for f in own_folders]
    import_own_dependencies()  # before the user's folder goes first on sys.path: their rich.py shadows nothing
    _enter_scope(scope.key)
    before = set(sys.modules)
    asked = scope.questions()
    record = ImportRecord()
    limit = TimeLimit(path, folders)
    try:
        # The first import of triton happens here on a cold path: loading a user's file compiles nothing
        # without it, and offline_imports answers the driver questions an import asks without a GPU.
        from ttinspect.compile.jit import offline_imports

        with limit, contained(folders, record), warnings_quoted(), offline_imports(), scope.enter(), \
                repeated_registrations_skipped(folders):
            return action()
    except BaseException as error:
        forget_on_error()
        if isinstance(error, KeyboardInterrupt) and record.signals:  # a real Ctrl-C, SIGTERM or SIGHUP
            raise
        raise _refusal(error, path, folders, scope, limit) from (None if isinstance(error, ProcessExit) else error)
    finally:
        if scope.questions() > asked:
            _ASKED_AT_IMPORT.add((scope.key, os.path.realpath(path)))
        for name in set(sys.modules) - before:
            folder = _own_folder(name, folders)
            if folder is not None:
                _LOADED.setdefault(folder, set()).add(name)


def _refusal(error: BaseException, path: Path, folders: list[str], scope: ImportScope,
             limit: TimeLimit) -> UsageError:
    """The one line for whatever escaped the import: an exception of any kind (SystemExit, GeneratorExit, a
    KeyboardInterrupt the code raised itself, a BaseException of its own), the time limit, os._exit()."""
    # an error path of a user's import (run_user_code loaded them already)
    from ttinspect.files.import_limit import ImportTimedOut, timed_out_text
    from ttinspect.refs.containment import ProcessExit

    if isinstance(error, SyntaxError):
        return UsageError(f"{error.filename or path}:{error.lineno}: SyntaxError: {error.msg}")
    if isinstance(error, ImportTimedOut):
        return UsageError(timed_out_text(path, limit.seconds, limit.source, where(error, folders)))
    if isinstance(error, ProcessExit):  # os._exit()/os.abort() would end ttinspect with no word
        return UsageError(f"importing {path} called {error} ({where(error, folders)})")
    # an error path: the retry past a failing __init__.py that failed in turn names the first cause first
    from ttinspect.refs.init_retry import InitRetryFailed

    if isinstance(error, InitRetryFailed):
        return UsageError(error.line(path, folders))
    if isinstance(error, UsageError):  # the virtual device's refusal already names what and where
        return UsageError(f"importing {path}: {error}")
    gluon = (" — Gluon kernels need Triton 3.4 or later (REF@triton=3.9.0 compiles with another release)"
             if isinstance(error, ModuleNotFoundError)
             and error.name in ("triton.experimental", "triton.experimental.gluon") else "")
    # an error path only: what the code asked of a real GPU's programs, if anything (virtual/programs.py)
    from ttinspect.virtual.programs import ran_gpu_programs

    ran = ran_gpu_programs() if scope.key not in ("", "native") else []  # only a virtual device refuses
    programs = (f"; before it, the code ran {', '.join(ran)}, which only a real GPU answers (a library's own "
                "switch may choose its device without it: docs/virtual-device.md)") if ran else ""
    said = _said(error)
    return UsageError(f"importing {path} raised {type(error).__name__}{': ' + said if said else ''} "
                      f"({where(error, folders)}; TTINSPECT_DEBUG=1 shows the whole traceback){programs}{gluon}")


def current_scope() -> str:
    return _scope_key[0]


def _enter_scope(key: str) -> None:
    if key == _scope_key[0]:
        return
    for names in _LOADED.values():
        for name in names:
            sys.modules.pop(name, None)
    _LOADED.clear()
    _scope_key[0] = key


def _own_folder(name: str, folders: list[str]) -> str | None:
    origin = getattr(sys.modules.get(name), "__file__", None)
    if not origin:
        return None
    real = os.path.realpath(origin)
    return next((f for f in folders if real == f or real.startswith(f + os.sep)), None)


def forget_other_folders(folder: str) -> None:
    """Before loading from `folder`: the modules other user folders brought in are forgotten, and those
    folders leave sys.path."""
    for other, names in _LOADED.items():
        if other == folder or folder.startswith(other + os.sep) or other.startswith(folder + os.sep):
            continue
        for module in names:
            sys.modules.pop(module, None)
        while other in sys.path:
            sys.path.remove(other)


def import_package_module(package: PackageModule, path: Path) -> ModuleType:
    """Import `package.module` from `package.root`, as Python would with the root on sys.path. A parent
    whose `__init__.py` raises is made without running it (one line says so). A file of an installed
    package (its root a site-packages folder) is imported by name from this environment's packages — in
    another Triton's toolchain, the toolchain's own copy — never by putting that folder first."""
    root = str(package.root)
    installed = is_installed(package)
    forget_other_folders(str(package.package_folder))
    if not installed:
        _forget_foreign(package, path)
        if root not in sys.path:
            sys.path.insert(0, root)
    # the retry that skips a failing __init__.py, loaded only when a package module is imported (a cold path)
    from ttinspect.refs.init_retry import InitRetryFailed, import_parents

    skipped = import_parents(package, _dependencies_installable[0])
    try:
        module = importlib.import_module(package.module)
    except Exception as error:
        if skipped.first is None:
            raise
        raise InitRetryFailed(skipped.first, skipped.first_where, skipped.inits, error) from error
    got = os.path.realpath(getattr(module, "__file__", "") or "")
    if got != os.path.realpath(path) and not installed:
        raise UsageError(f"{package.module}: importing it gave {got or 'a module without a file'}, not {path} "
                         f"(another {package.top!r} is imported first; run from {package.root} or rename)")
    return module


def is_installed(package: PackageModule) -> bool:
    """A package of this environment (its root a site-packages folder): imported by name, never set aside."""
    return package.root.name in ("site-packages", "dist-packages")


def runs_ttinspect(top: str) -> bool:
    """A package ttinspect itself runs on: another copy of it cannot be imported in the same process."""
    return top in ("triton", "torch", "ttinspect", "click", "rich", "pygments", "numpy")


def _forget_foreign(package: PackageModule, path: Path) -> None:
    """A package of the same name imported earlier from elsewhere (another checkout) is forgotten, so that
    the one the user named is imported — unless it is one ttinspect itself runs on (triton, torch)."""
    loaded = sys.modules.get(package.top)
    if loaded is None:
        return
    # its own folder is the first of its __path__ (a captured copy adds the folder it overlays after its own)
    own = [os.path.realpath(p) for p in list(getattr(loaded, "__path__", []) or [])[:1]]
    if os.path.realpath(package.package_folder) in own:
        return
    if runs_ttinspect(package.top):
        raise UsageError(f"{path}: a file of a {package.top!r} package, but ttinspect runs on the installed "
                         f"{package.top!r}; copy the kernel into a file of its own")
    _unload_package(package)


def _unload_package(package: PackageModule) -> None:
    for name in [n for n in sys.modules if n == package.top or n.startswith(package.top + ".")]:
        del sys.modules[name]


def exec_loose_file(name: str, path: Path, definitions_only: bool = False) -> ModuleType:
    """Execute a file that belongs to no package as module `name`, its folder first on sys.path;
    `definitions_only`: a program's own script, its definitions without its actions (program_script.py)."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"{path}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.parent)
    forget_other_folders(folder)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    sys.modules[name] = module  # @triton.jit reads the source through the module; dataclasses need it too
    if definitions_only:
        # the capture's replay runtime holds the filter: only for a captured program's own script
        from ttinspect.refs.program_script import run_definitions

        run_definitions(module, path)
    else:
        spec.loader.exec_module(module)
    return module

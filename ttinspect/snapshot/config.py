"""`[tool.ttinspect]` in a library's pyproject.toml: which kernels, which targets, what fails the gate.

    [tool.ttinspect]
    kernels = ["mylib/ops/*.py"]       # files with TTINSPECT_EXAMPLES (globs, relative to pyproject.toml)
    targets = ["sm_80", "sm_90"]       # default: sm_90
    fail-on = "warning"                 # new findings at or above this fail the gate (default: error)
    guard = ["spills", "pipeline_depth"]   # the fact regressions that fail (default: all of GUARDS)
    snapshot = "ttinspect.snapshot.json"   # where the snapshot lives (default)

Every value is checked here, once, with the line a user needs (the file and the key): a gate that
silently ignores a misspelled guard would pass everything.
"""

from __future__ import annotations

import glob
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ttinspect.errors import UsageError
from ttinspect.engine.builds import resolve_target

GUARDS = ("spills", "pipeline_depth", "tensor_core_path", "occupancy", "shared_memory")
LEVELS = ("info", "warning", "error")
DEFAULT_SNAPSHOT = "ttinspect.snapshot.json"
_KEYS = ("kernels", "targets", "fail-on", "guard", "snapshot")


@dataclass(frozen=True)
class SnapshotConfig:
    root: Path  # the folder of pyproject.toml: paths in the snapshot are relative to it
    kernels: tuple[str, ...]  # the patterns as written
    targets: tuple[str, ...]
    fail_on: str
    guard: tuple[str, ...]
    snapshot: Path
    source: str  # "pyproject.toml" or "--kernels"

    def files(self) -> list[Path]:
        """The kernel files the patterns name, sorted, each once; a pattern that names nothing is refused
        (a typo would otherwise shrink the gate to nothing)."""
        found: dict[Path, None] = {}
        for pattern in self.kernels:
            if pattern.endswith(".ttcap") or (not any(c in pattern for c in "/*?[") and not pattern.endswith(".py")):
                raise UsageError(f"{self.source}: kernels entry {pattern!r}: give file globs (mylib/ops/*.py); module "
                                 "references and captures are not snapshotted yet")
            matches = sorted(glob.glob(str(self.root / pattern), recursive=True))
            files = [Path(m) for m in matches if m.endswith(".py") and os.path.isfile(m)]
            if not files:
                raise UsageError(f"{self.source}: kernels entry {pattern!r} matches no Python file under {self.root}")
            for file in files:
                found.setdefault(file.resolve(), None)
        return list(found)


def find_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load(start: Path | None = None, *, kernels: tuple[str, ...] = (), targets: tuple[str, ...] = (),
         fail_on: str | None = None, snapshot: str | None = None) -> SnapshotConfig:
    """The configuration from the nearest pyproject.toml at or above `start`, command-line values winning."""
    start = (start or Path.cwd()).resolve()
    pyproject = find_pyproject(start)
    table: dict[str, Any] = {}
    source = "--kernels"
    root = start
    if pyproject is not None:
        table = _read_table(pyproject)
        root = pyproject.parent
        source = str(pyproject)
    if not table and not kernels:
        where = f"{pyproject} has no [tool.ttinspect] table" if pyproject else f"no pyproject.toml at or above {start}"
        raise UsageError(f"{where}: add [tool.ttinspect] kernels = [\"mylib/ops/*.py\"] (docs/ci.md), or pass "
                         "--kernels")
    unknown = [k for k in table if k not in _KEYS]
    if unknown:
        raise UsageError(f"{source}: [tool.ttinspect] has unknown key(s) {', '.join(unknown)}; "
                         f"keys: {', '.join(_KEYS)}")
    kernel_patterns = tuple(kernels) or _strings(table, "kernels", source, required=True)
    target_names = tuple(targets) or _strings(table, "targets", source) or ("sm_90",)
    level = fail_on or table.get("fail-on", "error")
    if level not in LEVELS:
        raise UsageError(f"{source}: fail-on = {level!r}: one of {', '.join(LEVELS)}")
    guard = _strings(table, "guard", source) or GUARDS
    wrong = [g for g in guard if g not in GUARDS]
    if wrong:
        raise UsageError(f"{source}: guard {', '.join(map(repr, wrong))}: not a guard; guards: {', '.join(GUARDS)}")
    path = snapshot or table.get("snapshot", DEFAULT_SNAPSHOT)
    if not isinstance(path, str) or not path.strip():
        raise UsageError(f"{source}: snapshot must be a file name, e.g. {DEFAULT_SNAPSHOT!r}")

    for name in target_names:
        try:
            resolve_target(name)  # an unknown target is refused here, with the valid ones
        except UsageError as error:
            where = "--arch" if targets else f"{source}: [tool.ttinspect] targets"
            raise UsageError(f"{where}: {error} (one target per list item: [\"sm_80\", \"gfx942\"])") from None
    # not resolved: a link at the snapshot's path is refused when written, never followed
    return SnapshotConfig(root, kernel_patterns, target_names, level, tuple(guard), root / path, source)


def _read_table(pyproject: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the same parser, from PyPI
        import tomli as tomllib
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{pyproject}: cannot be read ({error})") from None
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{pyproject}: not valid TOML ({error})") from None
    table = data.get("tool", {}).get("ttinspect", {})
    if not isinstance(table, dict):
        raise UsageError(f"{pyproject}: [tool.ttinspect] must be a table")
    return table


def _strings(table: dict[str, Any], key: str, source: str, required: bool = False) -> tuple[str, ...]:
    value = table.get(key)
    if value is None:
        if required:
            raise UsageError(f"{source}: [tool.ttinspect] needs {key} = [...]")
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise UsageError(f"{source}: [tool.ttinspect] {key} must be a list of strings")
    if not value:  # an empty list would silently shrink the gate to nothing (or fall back to a default)
        raise UsageError(f"{source}: [tool.ttinspect] {key} = [] names nothing; leave it out for the default"
                         if not required else f"{source}: [tool.ttinspect] {key} = [] names no kernel file")
    return tuple(value)

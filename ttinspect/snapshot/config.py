"""`[tool.ttinspect]` in a library's pyproject.toml: which kernels, which targets, what fails the gate.

    [tool.ttinspect]
    kernels = ["mylib/ops/*.py"]       # files with TTINSPECT_EXAMPLES (globs, relative to pyproject.toml)
    targets = ["sm_80", "sm_90"]       # default: sm_90
    fail-on = "warning"                 # new findings at or above this fail the gate (default: error)
    guard = ["spills", "pipeline_depth"]   # the fact regressions that fail (default: all of GUARDS)
    snapshot = "ttinspect.snapshot.json"   # where the snapshot lives (default)
    release-change = "fail"             # a snapshot made with another Triton release: "fail" (default) or "warn"
    strict = false                      # true: an entry not in the snapshot, or a stale one, fails --check
    # and [[tool.ttinspect.budget]], [tool.ttinspect.tolerance], [[tool.ttinspect.allow]]: policy.py

Every value is checked here, once, with the line a user needs (the file and the key): a gate that
silently ignores a misspelled guard would pass everything.
"""

from __future__ import annotations

import glob
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ttinspect.errors import UsageError
from ttinspect.files.source_files import read_regular
from ttinspect.engine.builds import resolve_target
from ttinspect.snapshot.policy import Policy, read_policy

GUARDS = ("spills", "pipeline_depth", "tensor_core_path", "occupancy", "shared_memory")
OPTIONAL_GUARDS = ("registers",)  # guarded only when listed (a register more is seldom a regression alone)
LEVELS = ("info", "warning", "error")
RELEASE_CHANGE = ("fail", "warn")
DEFAULT_SNAPSHOT = "ttinspect.snapshot.json"
_KEYS = ("kernels", "targets", "fail-on", "guard", "snapshot", "release-change", "strict", "budget", "tolerance",
         "allow")


@dataclass(frozen=True)
class SnapshotConfig:
    root: Path  # the folder of pyproject.toml: paths in the snapshot are relative to it
    kernels: tuple[str, ...]  # the patterns as written
    targets: tuple[str, ...]
    fail_on: str
    guard: tuple[str, ...]
    snapshot: Path
    source: str  # "pyproject.toml" or "--kernels"
    release_change: str = "fail"  # a snapshot of another Triton release: fail the gate, or only say so
    strict: bool = False  # an entry not in the snapshot, or one that no longer matches it, fails --check
    policy: Policy = field(default_factory=Policy)  # budgets, tolerances, suppressions (policy.py)
    kernels_at: str = ""  # pyproject.toml:LINE of `kernels`: where a result with no file of its own is shown

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
    """The nearest pyproject.toml at or above `start`. One that is there but is no regular file (a FIFO, a
    folder, a link to a device) is refused for what it is, never opened and never skipped for one above."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
        if candidate.exists() or candidate.is_symlink():
            raise UsageError(f"{candidate}: not a regular file ({_what_is(candidate)}); not read")
    return None


def _what_is(path: Path) -> str:
    import stat  # only to name what a refused path is

    try:
        mode = path.stat().st_mode
    except OSError:
        return "a link to nothing" if path.is_symlink() else "unreadable"
    kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device" \
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a file"
    return f"a link to {kind}" if path.is_symlink() else kind


def load(start: Path | None = None, *, kernels: tuple[str, ...] = (), targets: tuple[str, ...] = (),
         fail_on: str | None = None, snapshot: str | None = None) -> SnapshotConfig:
    """The configuration from the nearest pyproject.toml at or above `start`, command-line values winning."""
    start = (start or Path.cwd()).resolve()
    pyproject = find_pyproject(start)
    table: dict[str, Any] = {}
    source = "--kernels"
    root = start
    at = _Locator("", "")
    if pyproject is not None:
        table, at = _read_table(pyproject)
        root = pyproject.parent
        source = str(pyproject)
    if not table and not kernels:
        where = f"{pyproject} has no [tool.ttinspect] table" if pyproject else f"no pyproject.toml at or above {start}"
        raise UsageError(f"{where}: add [tool.ttinspect] kernels = [\"mylib/ops/*.py\"] (docs/ci.md), or pass "
                         "--kernels")
    unknown = [k for k in table if k not in _KEYS]
    if unknown:
        named = ", ".join(k if _plain(k) else repr(k) for k in unknown)
        raise UsageError(f"{at(unknown[0])}: [tool.ttinspect] has unknown key(s) {named}; "
                         f"keys: {', '.join(_KEYS)}")
    kernel_patterns = tuple(kernels) or _strings(table, "kernels", at, required=True)
    if not kernels:  # a repository's own configuration names files inside it, never elsewhere on the machine
        for pattern in kernel_patterns:
            _inside(pattern, "kernels", at)
    target_names = tuple(targets) or _strings(table, "targets", at) or ("sm_90",)
    level = fail_on or table.get("fail-on", "error")
    if level not in LEVELS:
        raise UsageError(f"{at('fail-on')}: fail-on = {_shown(level)}: one of {', '.join(LEVELS)}")
    guard = _strings(table, "guard", at) or GUARDS
    wrong = [g for g in guard if g not in GUARDS + OPTIONAL_GUARDS]
    if wrong:
        raise UsageError(f"{at('guard')}: guard {', '.join(map(repr, wrong))}: not a guard; guards: "
                         f"{', '.join(GUARDS + OPTIONAL_GUARDS)}")
    release_change = table.get("release-change", "fail")
    if release_change not in RELEASE_CHANGE:
        raise UsageError(f"{at('release-change')}: release-change = {_shown(release_change)}: one of "
                         f"{', '.join(map(repr, RELEASE_CHANGE))}")
    strict = table.get("strict", False)
    if not isinstance(strict, bool):
        raise UsageError(f"{at('strict')}: strict = {_shown(strict)}: true or false")
    policy = read_policy(table, "\n".join(at.lines), at.source or "--kernels")
    path = snapshot or table.get("snapshot", DEFAULT_SNAPSHOT)
    if not isinstance(path, str) or not path.strip() or not _plain(path):
        raise UsageError(f"{at('snapshot')}: snapshot = {_shown(path)}: must be a file name, e.g. "
                         f"{DEFAULT_SNAPSHOT!r}")
    if not snapshot:  # the file a repository's configuration may make ttinspect write: inside the repository
        _inside(path, "snapshot", at)

    for name in target_names:
        try:
            resolve_target(name)  # an unknown target is refused here, with the valid ones
        except UsageError as error:
            where = "--arch" if targets else f"{at('targets')}: [tool.ttinspect] targets"
            raise UsageError(f"{where}: {error} (one target per list item: [\"sm_80\", \"gfx942\"])") from None
    # not resolved: a link at the snapshot's path is refused when written, never followed
    return SnapshotConfig(root, kernel_patterns, target_names, level, tuple(guard), root / path, source,
                          release_change, strict, policy, at("kernels") if pyproject is not None else "")


class _Locator:
    """`pyproject.toml:LINE` for a key of [tool.ttinspect] (the line a user edits), found in the text: tomllib
    keeps no positions. A key written another way (a dotted key elsewhere) is named without a line."""

    def __init__(self, source: str, text: str):
        self.source, self.lines = source, text.splitlines()

    def __call__(self, key: str) -> str:
        section = ""
        for number, line in enumerate(self.lines, 1):
            stripped = line.strip()
            if stripped.startswith("["):
                section = stripped.strip("[] ").replace(" ", "").replace('"', "")
                continue
            name = stripped.partition("=")[0].strip().strip('"').strip("'") if "=" in stripped else ""
            if section == "tool.ttinspect" and name == key or section == "tool" and name == f"ttinspect.{key}" \
                    or not section and name in (f"tool.ttinspect.{key}", key if key == "tool" else None):
                return f"{self.source}:{number}"
        return self.source or "--kernels"


def _read_table(pyproject: Path) -> tuple[dict[str, Any], _Locator]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the same parser, from PyPI
        import tomli as tomllib
    data_bytes = read_regular(pyproject)  # never blocks: swapped for a FIFO since it was found, it is refused
    if data_bytes is None:
        raise UsageError(f"{pyproject}: cannot be read, or not a regular file")
    try:
        text = data_bytes.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError as error:
        raise UsageError(f"{pyproject}: cannot be read ({error})") from None
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{pyproject}: not valid TOML ({error})") from None
    except RecursionError:  # `x = [[[[...]]]]` thousands deep: tomllib recurses once per level
        raise UsageError(f"{pyproject}: arrays or tables nested too deep to read as TOML") from None
    at = _Locator(str(pyproject), text)
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise UsageError(f"{at('tool')}: tool = {_shown(tool)}: [tool] must be a table")
    table = tool.get("ttinspect", {})
    if not isinstance(table, dict):
        raise UsageError(f"{at('ttinspect')}: [tool] ttinspect must be a table, got {_shown(table)}")
    return table, at


def _strings(table: dict[str, Any], key: str, at: _Locator, required: bool = False) -> tuple[str, ...]:
    value = table.get(key)
    if value is None:
        if required:
            raise UsageError(f"{at.source or '--kernels'}: [tool.ttinspect] needs {key} = [...]")
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() and _plain(v) for v in value):
        raise UsageError(f"{at(key)}: [tool.ttinspect] {key} = {_shown(value)}: must be a list of strings "
                         "(no control characters, at most 1000 characters each)")
    if not value:  # an empty list would silently shrink the gate to nothing (or fall back to a default)
        raise UsageError(f"{at(key)}: [tool.ttinspect] {key} = [] names nothing; leave it out for the default"
                         if not required else f"{at(key)}: [tool.ttinspect] {key} = [] names no kernel file")
    return tuple(value)


def _plain(text: str) -> bool:
    """Text a path or a name can be: no control character (a NUL is no file name), of a sane length."""
    return len(text) <= 1000 and not any(ord(c) < 32 or ord(c) == 127 for c in text)


def _inside(path: str, key: str, at: _Locator) -> None:
    if os.path.isabs(path) or path.startswith("~") or ".." in Path(path).parts:
        raise UsageError(f"{at(key)}: [tool.ttinspect] {key} {path!r}: must be relative to pyproject.toml's folder "
                         "and stay inside it (no absolute path, no `..`)")


def _shown(value: Any) -> str:
    """A value as the message quotes it: repr, and never more than a line's worth."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."

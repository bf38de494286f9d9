"""Toolchains: other Triton releases beside the installed one, each in an environment of its own, so that
one kernel can be compiled under two Tritons and diffed (`opt@triton=3.5.1`).

    <cache root>/toolchains/<X.Y.Z>.json   the record: which python runs it, managed or registered
    <cache root>/toolchains/<X.Y.Z>/       a managed environment (created with uv, else pip)

A managed environment starts with Triton only (inspection needs nothing else); the packages a user's file
imports (torch, first of all) are added on first use, as this environment has them (packages.py), and
listed in the record. ttinspect itself is not installed there — the worker (worker.py) runs this
checkout's code with that environment's Triton first on the path. An existing environment can be
registered instead (`--python PATH`): CI reuses the venvs it already has; ttinspect never installs into
one. Nothing here imports triton.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ttinspect.caches.store import cache_root, make_dir
from ttinspect.errors import UsageError
from ttinspect.targets.releases import installed_version
from ttinspect.caches import store as cache

VERSION_RE = re.compile(r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$")  # ASCII, no leading zeros
OFFLINE_ENV = "TTINSPECT_OFFLINE"  # only toolchains already prepared; never create one


def offline() -> bool:
    return os.environ.get(OFFLINE_ENV, "").strip().lower() not in ("", "0", "false", "no", "off")


def root() -> Path:
    return cache_root() / "toolchains"


OLDEST = (3, 3)  # the oldest release ttinspect drives (docs/versions.md)


def check_format(text: str) -> str:
    if not VERSION_RE.fullmatch(text or ""):
        raise UsageError(f"Triton version {text!r}: expected X.Y.Z, e.g. 3.5.1")
    return text


def check_version(text: str) -> str:
    check_format(text)
    if tuple(int(x) for x in text.split(".")[:2]) < OLDEST:
        raise UsageError(f"Triton {text}: ttinspect drives Triton {OLDEST[0]}.{OLDEST[1]} and later (docs/versions.md)")
    return text


@dataclass(frozen=True)
class Toolchain:
    version: str
    python: str  # the interpreter whose environment holds that Triton
    managed: bool  # created by ttinspect (removed with it) or registered (only forgotten)
    seconds: float | None = None  # how long preparing it took
    tool: str | None = None  # what prepared it: uv or pip
    packages: tuple[str, ...] = ()  # what ttinspect installed beside Triton since (requirements, in order)

    @property
    def directory(self) -> Path:
        return root() / self.version

    def size(self) -> int | None:
        if not self.managed or not self.directory.is_dir():
            return None
        return sum(p.stat().st_size for p in self.directory.rglob("*") if p.is_file() and not p.is_symlink())

    def problem(self) -> str | None:
        """Why it cannot be used (its python gone: an environment deleted halfway), or None."""
        if not Path(self.python).exists():
            return f"its python {self.python} is gone"
        if self.managed and not any(self.directory.glob("lib/python*/site-packages/triton/__init__.py")):
            return "its Triton package is gone"
        return None


def _record(version: str) -> Path:
    return root() / f"{version}.json"


def find(version: str) -> Toolchain | None:
    try:
        data = json.loads(_record(version).read_text())
        return Toolchain(data["version"], data["python"], bool(data["managed"]), data.get("seconds"),
                         data.get("tool"), tuple(str(p) for p in data.get("packages", ())))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def all_toolchains() -> list[Toolchain]:
    if not root().is_dir():
        return []
    found = [find(p.stem) for p in sorted(root().glob("*.json")) if VERSION_RE.fullmatch(p.stem)]
    return sorted((t for t in found if t is not None), key=lambda t: tuple(int(x) for x in t.version.split(".")))


def write(toolchain: Toolchain) -> None:
    make_dir(root())
    cache.write_atomic(_record(toolchain.version), json.dumps(asdict(toolchain), indent=1).encode())


PROBE_SECONDS = 120.0  # asking a python for its Triton's version: a second when it is well


def triton_of(python: str) -> str:
    """The Triton release `python`'s environment imports (read from its metadata; nothing compiled)."""
    probe = "import importlib.metadata as m; print(m.version('triton'))"
    try:
        done = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=PROBE_SECONDS)
    except OSError as error:
        raise UsageError(f"{python}: cannot run it ({error.strerror})") from error
    except subprocess.TimeoutExpired:  # a python that never answers: stopped (run() kills it), said in one line
        raise UsageError(f"{python}: did not answer within {PROBE_SECONDS:g} s when asked which Triton it has; "
                         "stopped") from None
    if done.returncode != 0:
        raise UsageError(f"{python}: no Triton in its environment")
    return done.stdout.strip()


def register(version: str, python: str) -> Toolchain:
    """An existing environment whose python imports Triton `version` (checked)."""
    check_version(version)
    have = triton_of(python)
    if have != version:
        raise UsageError(f"{python} has Triton {have}, not {version}")
    toolchain = Toolchain(version, str(Path(python).absolute()), managed=False)
    write(toolchain)
    return toolchain


def prepare(version: str, *, log=None) -> Toolchain:
    """A managed environment with Triton `version`: uv when it is installed (fast), else venv + pip.
    Built in a staging directory and moved into place, so an interrupted preparation leaves nothing
    that looks usable."""
    check_version(version)
    existing = find(version)
    if existing and not existing.problem():
        return existing
    if offline():
        raise UsageError(f"Triton {version} is not prepared and ttinspect is offline (--offline / {OFFLINE_ENV}): "
                         f"`ttinspect toolchains --add {version}` where a package index is reachable")
    if version == installed_version():
        raise UsageError(f"Triton {version} is the installed one: no toolchain needed")
    make_dir(root())
    with locked(version):  # two processes asking for one release at once: the second waits, then uses it
        existing = find(version)
        if existing and not existing.problem():
            return existing
        return _prepare_locked(version, log)


@contextlib.contextmanager
def locked(version: str):
    """One process at a time changes a release's toolchain (prepares it, installs into it)."""
    make_dir(root())
    with open(root() / f".{version}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _prepare_locked(version: str, log) -> Toolchain:
    for stale in root().glob(f".staging-{version}-*"):  # an interrupted preparation (we hold the lock)
        shutil.rmtree(stale, ignore_errors=True)
    staging = root() / f".staging-{version}-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    start = time.perf_counter()
    try:
        tool = _create(staging, version, log)
        final = root() / version
        shutil.rmtree(final, ignore_errors=True)
        staging.rename(final)
        # a venv's scripts name their own directory: the interpreter is found through the moved path
        toolchain = Toolchain(version, str(final / "bin" / "python"), managed=True,
                              seconds=round(time.perf_counter() - start, 1), tool=tool)
        if triton_of(toolchain.python) != version:
            shutil.rmtree(final, ignore_errors=True)
            raise UsageError(f"Triton {version}: the environment was created but does not import it")
        write(toolchain)
        return toolchain
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _create(where: Path, version: str, log) -> str:
    """uv when it is on PATH (it reads its own index settings: UV_INDEX_URL, ...), else — or when uv cannot
    find the release — venv + pip (pip's configuration and cache). Returns which one did it."""
    attempts = []
    uv = shutil.which("uv")
    if uv:
        attempts.append(("uv", [[uv, "venv", "--quiet", "--python", sys.executable, str(where)],
                                [uv, "pip", "install", "--quiet", "--python", str(where / "bin" / "python"),
                                 f"triton=={version}"]]))
    attempts.append(("pip", [[sys.executable, "-m", "venv", "--without-pip", str(where)],
                             [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                              "--target", str(_site_packages(where)), f"triton=={version}"]]))
    reason = "no installer"
    for tool, commands in attempts:
        shutil.rmtree(where, ignore_errors=True)
        for command in commands:
            if log:
                log(" ".join(command))
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                reason = installer_reason(done.stderr + done.stdout)
                break
        else:
            return tool
    raise UsageError(f"Triton {version}: cannot be installed here ({reason})")


def _site_packages(venv: Path) -> Path:
    return venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


def installer_reason(text: str) -> str:
    """The installer's own one-line reason (not on the index, not for this Python, no network)."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("WARNING")]
    for line in lines:
        if line.startswith(("ERROR:", "error:", "×")) or "No solution" in line or "not found" in line.lower():
            return line.removeprefix("ERROR: ").strip()
    return lines[-1] if lines else "no reason given"


def remove(version: str) -> Toolchain:
    toolchain = find(check_format(version))
    if toolchain is None:
        raise UsageError(f"Triton {version}: no such toolchain (`ttinspect toolchains` lists them)")
    _record(version).unlink(missing_ok=True)
    if toolchain.managed:
        shutil.rmtree(toolchain.directory, ignore_errors=True)
    return toolchain


def ready(version: str) -> Toolchain:
    """The toolchain to compile with, prepared on first use (unless offline); one line when it cannot be."""
    toolchain = find(check_version(version))
    if toolchain is not None:
        problem = toolchain.problem()
        if problem is None:
            return toolchain
        raise UsageError(f"Triton {version} toolchain is broken ({problem}): "
                         f"`ttinspect toolchains --remove {version} --add {version}`")
    if not offline():
        print(f"ttinspect: preparing Triton {version} (once; `ttinspect toolchains` lists them)", file=sys.stderr)
    return prepare(version)


def rows() -> list[dict]:
    """The installed Triton, then every toolchain: what `ttinspect toolchains` shows."""
    out: list[dict] = []
    here = installed_version()
    if here:
        out.append({"version": here, "kind": "installed", "python": sys.executable, "size": None,
                    "seconds": None, "tool": None, "status": "ok", "packages": []})
    for t in all_toolchains():
        out.append({"version": t.version, "kind": "managed" if t.managed else "registered", "python": t.python,
                    "size": t.size(), "seconds": t.seconds, "tool": t.tool, "status": t.problem() or "ok",
                    "packages": list(t.packages)})
    return out

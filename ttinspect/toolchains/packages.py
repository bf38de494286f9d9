"""What a toolchain carries beside Triton: the third-party packages a user's kernel file imports (torch first
of all), installed on first use *as this environment has them*, with the toolchain's own Triton pinned.

The rule is one for every package. A worker whose user file fails with ModuleNotFoundError names the
top-level module it lacks and where it was imported (versions/worker.py); the client (remote.py) calls
`provide`, which looks the module up in this environment's installed distributions:

- found, from a package index: `NAME==VERSION` (torch -> `torch==2.13.0+cpu`) is installed into the managed
  toolchain, one note on stderr, and the worker runs again;
- found, from a file or a VCS URL (PEP 610's direct_url.json): `NAME @ URL`, the same way;
- installed editable, provided by several distributions, absent here too, a registered environment (yours:
  ttinspect never changes it), or ttinspect offline: one line naming the fix (`ttinspect toolchains --add
  X.Y.Z --with NAME`).

Every install is constrained: Triton to the toolchain's release (a torch that wants another Triton is refused,
never allowed to replace it) and every other package this environment has to its version here (so torch's
dependencies, or a library's `torch>=2.1`, resolve to what runs here, not to the newest CUDA build).
uv installs when it is on PATH (its own index settings), else pip, with pip's configuration (find-links
included). Nothing here imports triton.
"""

from __future__ import annotations

import importlib.metadata as metadata
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import unquote, urlparse

from ttinspect.errors import UsageError
from ttinspect.toolchains import registry
from ttinspect.toolchains.registry import Toolchain

NAME_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$")  # a distribution or module name (PEP 508)


@dataclass(frozen=True)
class Installed:
    """One distribution of this environment: what a toolchain is given for it."""

    name: str
    version: str
    url: str | None = None  # installed from a file or a VCS (PEP 610), not from an index
    editable: bool = False

    @property
    def requirement(self) -> str | None:
        """What pip installs to get the same package; None for an editable one (its source folder is a
        working copy: a copy of it would go stale)."""
        if self.editable:
            return None
        return f"{self.name} @ {self.url}" if self.url else f"{self.name}=={self.version}"

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}"


def _installed(distribution: metadata.Distribution) -> Installed:
    name = distribution.metadata["Name"]
    try:
        direct = json.loads(distribution.read_text("direct_url.json") or "null")
    except ValueError:
        direct = None
    if not isinstance(direct, dict) or not isinstance(direct.get("url"), str):
        return Installed(name, distribution.version)
    editable = bool((direct.get("dir_info") or {}).get("editable"))
    vcs = direct.get("vcs_info") or {}
    url = direct["url"]
    if vcs.get("vcs") and vcs.get("commit_id"):  # the very commit this environment has
        url = f"{vcs['vcs']}+{url}@{vcs['commit_id']}"
    elif not editable and url.startswith("file://") and not Path(unquote(urlparse(url).path)).exists():
        # installed from a wheel or an archive removed since (a download folder cleaned): the index's release
        # of that version is the same package, and the one left to install
        return Installed(name, distribution.version)
    return Installed(name, distribution.version, url, editable)


def providers(module: str) -> list[Installed]:
    """This environment's distributions that provide the top-level module `module` (torch -> torch)."""
    names = metadata.packages_distributions().get(module, [])
    found: dict[str, Installed] = {}
    for name in names:
        try:
            found.setdefault(name.lower(), _installed(metadata.distribution(name)))
        except metadata.PackageNotFoundError:
            continue
    return list(found.values())


def requirement_for(text: str) -> str:
    """What `--with TEXT` installs: a bare name this environment has (as a distribution or a module) at
    its version here; anything else (`einops`, `torch==2.10.0`, `NAME @ URL`, a path) as pip reads it."""
    text = text.strip()
    if not text or text.startswith("-"):
        raise UsageError(f"--with {text!r}: give a package (NAME, NAME==VERSION, NAME @ URL), not an option")
    if not NAME_RE.fullmatch(text):
        return text
    try:
        here = _installed(metadata.distribution(text))
    except metadata.PackageNotFoundError:
        found = providers(text)
        if len(found) != 1:
            return text
        here = found[0]
    if here.requirement is None:
        raise UsageError(f"--with {text}: {here.label} is installed here in editable mode from {_folder(here)}; "
                         f"give its folder (--with {_folder(here)})")
    return here.requirement


def _folder(here: Installed) -> str:
    return unquote(urlparse(here.url or "").path) or "?"


def provide(toolchain: Toolchain, module: str, where: str) -> Toolchain:
    """The toolchain with this environment's distribution of `module` installed, which the user's code at
    `where` imports; one line naming the fix when that cannot be done."""
    v = toolchain.version
    lacks = f"No module named {module!r} in the Triton {v} toolchain ({where})"
    fix = f"`ttinspect toolchains --add {v} --with PACKAGE`"
    found = providers(module)
    if not found:
        raise UsageError(f"{lacks}, and nothing installed here provides it: {fix} installs the one that does")
    if len(found) > 1:
        names = " or ".join(sorted(h.name for h in found))
        raise UsageError(f"{lacks}; here it comes from {names}: {fix} with the one it needs")
    here = found[0]
    if here.requirement is None:
        raise UsageError(f"{lacks}; here it is {here.label}, installed editable from {_folder(here)}: "
                         f"`ttinspect toolchains --add {v} --with {_folder(here)}`")
    if not toolchain.managed:
        raise UsageError(f"{lacks}; it is a registered environment, which ttinspect does not change: "
                         f"`{toolchain.python} -m pip install '{here.requirement}'`")
    if registry.offline():
        raise UsageError(f"{lacks} and ttinspect is offline (--offline / {registry.OFFLINE_ENV}): it would install "
                         f"{here.requirement} (as here); `ttinspect toolchains --add {v} --with {here.name}` "
                         "where a package index is reachable")
    print(f"ttinspect: preparing {here.label} for the Triton {v} toolchain (once; the version installed here, "
          f"which {where} imports)", file=sys.stderr)
    try:
        return install(toolchain, [here.requirement], files_only_on_conflict=True)
    except UsageError as error:
        raise UsageError(f"{lacks}; {error}") from None


def install(toolchain: Toolchain, requirements: list[str], log=None, *,
            files_only_on_conflict: bool = False) -> Toolchain:
    """Install `requirements` into a managed toolchain (Triton pinned to its release, every other package
    this environment has to its version here); the toolchain, its record listing them. `files_only_on_conflict`
    (a package the user's code imports, as this environment has it): where its declared requirements cannot be
    met beside the toolchain's Triton — a library installed here with --no-deps, its serving stack's pins
    unmet here too — the package alone is installed (--no-deps), as here; what it imports that the toolchain
    lacks is then provided the same way, one module at a time."""
    v = toolchain.version
    wanted = " ".join(requirements)
    if not toolchain.managed:
        raise UsageError(f"Triton {v} is a registered environment ({toolchain.python}), which ttinspect does not "
                         f"change: `{toolchain.python} -m pip install {wanted}`")
    if registry.offline():
        raise UsageError(f"installing {wanted} into the Triton {v} toolchain needs a package index and ttinspect is "
                         f"offline (--offline / {registry.OFFLINE_ENV})")
    with registry.locked(v), tempfile.TemporaryDirectory(prefix="ttinspect-constraints-") as scratch:
        constraints = Path(scratch) / "constraints.txt"
        constraints.write_text("\n".join(_constraints(v)) + "\n")
        reason = _run_installer(toolchain.python, requirements, constraints, log)
        if reason is not None and files_only_on_conflict:
            alone = _run_installer(toolchain.python, requirements, constraints, log, no_deps=True)
            if alone is None:
                print(f"ttinspect: {wanted}: its declared requirements cannot be installed beside Triton {v} "
                      f"({reason}); installed without them (--no-deps), as here", file=sys.stderr)
            reason = alone and reason
        if reason is not None:
            raise UsageError(f"{wanted}: cannot be installed in the Triton {v} toolchain ({reason})")
        if registry.triton_of(toolchain.python) != v:  # the constraint forbids it; a broken installer would not
            raise UsageError(f"installing {wanted} changed the Triton {v} toolchain's Triton: "
                             f"`ttinspect toolchains --remove {v} --add {v}`")
        current = registry.find(v) or toolchain
        updated = replace(current, packages=current.packages + tuple(r for r in requirements
                                                                      if r not in current.packages))
        registry.write(updated)
        return updated


def _constraints(version: str) -> list[str]:
    """Triton at the toolchain's release; every other distribution this environment has from an index at its
    version here (constraints only bind what gets installed)."""
    pins = {"triton": f"triton=={version}"}
    for distribution in metadata.distributions():
        here = _installed(distribution)
        key = (here.name or "").lower()
        if key and key not in pins and here.url is None and NAME_RE.fullmatch(here.name):
            pins[key] = f"{here.name}=={here.version}"
    return list(pins.values())


def _run_installer(python: str, requirements: list[str], constraints: Path, log, *,
                   no_deps: bool = False) -> str | None:
    """uv when it is on PATH, else — or when uv fails — pip; None when one succeeded, else the last reason."""
    attempts = []
    alone = ["--no-deps"] if no_deps else []
    uv = shutil.which("uv")
    if uv:
        attempts.append([uv, "pip", "install", "--quiet", "--python", python, "--constraint", str(constraints),
                         *alone, *requirements])
    attempts.append([sys.executable, "-m", "pip", "--python", python, "install", "--quiet",
                     "--disable-pip-version-check", "--constraint", str(constraints), *alone, *requirements])
    reason = "no installer"
    for command in attempts:
        if log:
            log(" ".join(command))
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode == 0:
            return None
        reason = registry.installer_reason(done.stderr + done.stdout)
    return reason

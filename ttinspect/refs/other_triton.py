"""A reference resolved under another Triton (`REF@triton=X.Y.Z`): through the toolchain's worker the first
time, from a record afterwards (a warm cross-version command enters no environment and imports no Triton).

The record is keyed by the reference, its options, the Triton version and the sources it names (the
shipped kernels' files, or the user's file and its neighbours), so an edited kernel is compiled again.
"""

from __future__ import annotations

import os
from pathlib import Path

from ttinspect.engine import builds as engine
from ttinspect.errors import TTInspectError
from ttinspect.files.source_files import sibling_digests
from ttinspect.refs import memo
from ttinspect.refs.failed import Failed
from ttinspect.refs.kinds import SOURCE_KINDS, kind_of, parse_source_ref
from ttinspect.refs.loading import is_installed, runs_ttinspect
from ttinspect.toolchains.registry import ready
from ttinspect.toolchains.remote import kernels_dir, run_worker


def _sources_digest(ref: str) -> dict[str, str]:
    """The shipped kernels' files for a variant. A user's file or module needs nothing here: its record
    lists the files the kernel was made of (userfile.user_files, checked when it is read), so an unrelated
    edit in its folder costs no recompile and a warm call hashes no folder."""
    if kind_of(ref) in SOURCE_KINDS:
        return {}
    return sibling_digests(Path(kernels_dir() or ".") / "__init__.py")


def caller_folders(ref: str, kind: str) -> dict[str, str]:
    """The package the reference's kernel lives in, as this process finds it: {top-level name: its folder, or its
    file for a one-file module}. Empty for a loose file (the worker reads the same path) and a shipped variant."""
    if kind not in SOURCE_KINDS:
        return {}
    package = parse_source_ref(ref).package
    if package is None or runs_ttinspect(package.top) or not (package.by_name or is_installed(package)):
        return {}  # a checkout's package named by its path: the worker puts the same root on sys.path
    return {package.top: str(package.package_folder)}


def _memo_key(version: str, ref: str, raw: tuple, keep_going: bool, packages: dict[str, str]) -> str:
    return memo.key({"toolchain": version, "ref": ref, "raw": list(raw), "keep_going": keep_going,
                     "sources": _sources_digest(ref), "cwd": os.getcwd() if ":" in ref else "",
                     "packages": packages})


# entry directory name -> (version, reference, options): how to ask the toolchain for a build again
# (its pass history needs the kernel's source loaded, which only a resolve in the worker does)
_ORIGINS: dict[str, tuple[str, str, tuple]] = {}


def resolve_with(version: str, ref: str, raw: tuple, keep_going: bool = False) -> list:
    kind = kind_of(ref)
    packages = caller_folders(ref, kind)  # the worker compiles the user's copy of the package, as found here
    key = _memo_key(version, ref, raw, keep_going, packages)
    builds = memo.load(key) if not keep_going else None
    if not builds:
        if engine.cached_only_now():  # a diff asking what is warm: this side needs its toolchain
            raise engine.NotCached(ref)
        result = run_worker(ready(version), ref, raw, keep_going, extra={"kind": kind}, packages=packages)
        builds = _builds(result["builds"], version)
        if not any(_is_failed(b) for b in builds):
            memo.save(key, builds, result.get("files"))
    for built in builds:
        if not _is_failed(built):
            _ORIGINS[built.artifacts.directory.name] = (version, ref, raw)
    return builds


def _is_failed(built) -> bool:
    return isinstance(built, Failed)


def _builds(records: list, version: str) -> list:
    out: list = []
    for record in records:
        if "failed" in record:
            out.append(Failed(**record["failed"]))
            continue
        built = engine.Build.from_record(record["build"])
        if built is None:
            raise TTInspectError(f"Triton {version}: the worker's build is not in the cache (was it cleared?)")
        out.append(built)
    return out


def compute_history(version: str, build) -> None:
    """The pass history of a build another Triton made, computed by that Triton (its worker resolves
    the reference again and compiles once more with per-pass dumps), kept in the build's entry."""
    origin = _ORIGINS.get(build.artifacts.directory.name)
    if origin is None:
        raise TTInspectError(f"{build.label}: made by Triton {version}; its pass history is computed when it is "
                             f"named by its reference (REF@triton={version})")
    _, ref, raw = origin
    kind = kind_of(ref)
    run_worker(ready(version), ref, raw, False, extra={"history": True, "kind": kind},
               packages=caller_folders(ref, kind))

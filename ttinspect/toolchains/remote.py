"""A reference resolved under another Triton: through the toolchain's worker the first time, from a
record afterwards (a warm cross-version command enters no environment and imports no Triton).

The record is keyed by the reference, its options, the Triton version and the sources it names (the
shipped kernels' files, or the user's file and its neighbours), so an edited kernel is compiled again.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

from ttinspect.errors import CompileError, TTInspectError, UsageError

_BOOT = ("import sys; sys.path.append({root!r}); "
         "from ttinspect.toolchains.worker import main; main()")


def _package_root() -> Path:
    return Path(__file__).resolve().parent.parent.parent  # the directory holding the ttinspect package


def _kernels_dir() -> str | None:
    import importlib.util

    spec = importlib.util.find_spec("ttinspect_kernels")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return locations[0] if locations else None


def _sources_digest(ref: str) -> dict[str, str]:
    """The shipped kernels' files for a variant. A user's file needs nothing here: its record lists the
    files the kernel was made of (userfile.user_files, checked when it is read), so an unrelated edit in
    its folder costs no recompile and a warm call hashes no folder."""
    from ttinspect.engine.builds import _source_digest
    from ttinspect.refs.resolver import kind_of

    if kind_of(ref) == "file":
        return {}
    return _source_digest(Path(_kernels_dir() or ".") / "__init__.py")


def _memo_key(version: str, ref: str, raw: tuple, keep_going: bool) -> str:
    from ttinspect.refs import memo

    return memo.key({"toolchain": version, "ref": ref, "raw": list(raw), "keep_going": keep_going,
                     "sources": _sources_digest(ref), "cwd": os.getcwd() if ":" in ref else ""})


# entry directory name -> (version, reference, options): how to ask the toolchain for a build again
# (its pass history needs the kernel's source loaded, which only a resolve in the worker does)
_ORIGINS: dict[str, tuple[str, str, tuple]] = {}


def resolve_with(version: str, ref: str, raw: tuple, keep_going: bool = False) -> list:
    from ttinspect.refs import memo

    key = _memo_key(version, ref, raw, keep_going)
    builds = memo.load(key) if not keep_going else None
    if not builds:
        from ttinspect.engine import builds as engine
        from ttinspect.toolchains.registry import ready

        if engine._cached_only:  # a diff asking what is warm: this side needs its toolchain
            raise engine.NotCached(ref)
        result = _run_worker(ready(version), ref, raw, keep_going)
        builds = _builds(result["builds"], version)
        if not any(_is_failed(b) for b in builds):
            memo.save(key, builds, result.get("files"))
    for built in builds:
        if not _is_failed(built):
            _ORIGINS[built.artifacts.directory.name] = (version, ref, raw)
    return builds


def _is_failed(built) -> bool:
    from ttinspect.refs.resolver import Failed

    return isinstance(built, Failed)


def _builds(records: list, version: str) -> list:
    from ttinspect.engine.builds import Build
    from ttinspect.refs.resolver import Failed

    out: list = []
    for record in records:
        if "failed" in record:
            out.append(Failed(**record["failed"]))
            continue
        built = Build.from_record(record["build"])
        if built is None:
            raise TTInspectError(f"Triton {version}: the worker's build is not in the cache (was it cleared?)")
        out.append(built)
    return out


def compute_history(version: str, build) -> None:
    """The pass history of a build another Triton made, computed by that Triton (its worker resolves
    the reference again and compiles once more with per-pass dumps), kept in the build's entry."""
    from ttinspect.toolchains.registry import ready

    origin = _ORIGINS.get(build.artifacts.directory.name)
    if origin is None:
        raise TTInspectError(f"{build.label}: made by Triton {version}; its pass history is computed when it is "
                             f"named by its reference (REF@triton={version})")
    _, ref, raw = origin
    _run_worker(ready(version), ref, raw, False, extra={"history": True})


def _run_worker(toolchain, ref: str, raw: tuple, keep_going: bool, extra: dict | None = None) -> dict:
    with tempfile.TemporaryDirectory(prefix="ttinspect-worker-") as scratch:
        result_path = Path(scratch) / "result.json"
        request = {"ref": ref, "options": list(raw), "keep_going": keep_going, "kernels": _kernels_dir(),
                   "result": str(result_path), **(extra or {})}
        command = [toolchain.python, "-c", _BOOT.format(root=str(_package_root()))]
        try:
            done = subprocess.run(command, input=json.dumps(request), capture_output=True, text=True)
        except OSError as error:
            v = toolchain.version
            raise UsageError(f"Triton {v} toolchain cannot run ({error.strerror}): "
                             f"`ttinspect toolchains --remove {v} --add {v}`") from error
        try:
            result = json.loads(result_path.read_text())
        except (OSError, ValueError):
            if done.returncode < 0:  # killed by a signal: Triton's C++ crashed (or ran out of memory)
                import signal

                why = f"it crashed ({signal.Signals(-done.returncode).name})"
            else:
                why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}, no output"])[-1]
            raise TTInspectError(f"Triton {toolchain.version} worker failed: {why}") from None
    if "error" in result:
        kind = {"UsageError": UsageError, "CompileError": CompileError}.get(result.get("type"), TTInspectError)
        raise kind(f"Triton {toolchain.version}: {result['error']}")
    return result

"""The client side of a toolchain: run one request in another Triton's environment (its worker,
versions/worker.py, started as `python -c` with this checkout on its path) and return the worker's answer —
build records whose entries it wrote into the shared, content-addressed cache. A user's file that imports a
package the toolchain lacks (torch) gets it installed as this environment has it (packages.py) and is run
again. What a reference resolves to under another Triton (records -> builds, kept for warm calls) is
refs/other_triton.py.
"""

from __future__ import annotations

import sys

import importlib.util
import json
import os
import select
import subprocess
import tempfile
from pathlib import Path

from ttinspect.caches.store import WARNING, warn
from ttinspect.errors import CompileError, TTInspectError, ToolError, UsageError
from ttinspect.files.import_limit import ENV as IMPORT_TIMEOUT_ENV, limit as import_limit
from ttinspect.targets.releases import installed_version
from ttinspect.toolchains.registry import Toolchain
from ttinspect.toolchains.worker_env import for_worker

# The worker says it started (a line on its stdout) before it reads the request: a toolchain's python that
# never answers (a wrapper that waits, a frozen mount) is a bounded wait and one line, not a hang.
_STARTED = "ttinspect-worker-started"
_BOOT = ("import sys; sys.stdout.write({started!r} + '\\n'); sys.stdout.flush(); sys.path.append({root!r}); "
         "from ttinspect.versions.worker import main; main()")
START_SECONDS = 60.0  # a python's start: well under a second, tens on a cold network file system


def _package_root() -> Path:
    return Path(__file__).resolve().parent.parent.parent  # the directory holding the ttinspect package


def kernels_dir() -> str | None:
    """The folder of the shipped kernels (`ttinspect_kernels`), which the worker loads by path."""
    spec = importlib.util.find_spec("ttinspect_kernels")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return locations[0] if locations else None


def run_worker(toolchain: Toolchain, ref: str, raw: tuple, keep_going: bool, extra: dict | None = None,
               packages: dict[str, str] | None = None) -> dict:
    """Resolve `ref` (with the command line's options `raw`) in the toolchain's environment; the worker's
    JSON answer: build records (their entries are in the shared cache) and the files a user's kernel was
    made of. A module the user's code imports and the toolchain lacks is provided (each once) and the worker
    asked again; the worker's own failure is raised here as the error it was. `packages`: top-level name ->
    this process's folder of it, which the worker imports instead of its own copy (refs/caller_packages.py)."""
    provided: set[str] = set()
    while True:
        result = _run_once(toolchain, ref, raw, keep_going, extra, packages or {})
        missing = result.get("missing_module")
        if "error" not in result or not missing or missing in provided:
            break
        from ttinspect.toolchains.packages import provide  # only when a user's code lacks a module: off warm paths

        toolchain = provide(toolchain, missing, result.get("missing_at") or ref)
        provided.add(missing)
    if "error" in result:
        kind = {"UsageError": UsageError, "CompileError": CompileError}.get(str(result.get("type")), TTInspectError)
        if result.get("traceback"):  # TTINSPECT_DEBUG=1: what the user's code raised there, in full
            sys.stderr.write(result["traceback"].rstrip() + "\n")
        raise kind(f"Triton {toolchain.version}: {result['error']}")
    return result


def _run_once(toolchain: Toolchain, ref: str, raw: tuple, keep_going: bool, extra: dict | None,
              packages: dict[str, str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="ttinspect-worker-") as scratch:
        result_path = Path(scratch) / "result.json"
        request = {"ref": ref, "options": list(raw), "keep_going": keep_going, "kernels": kernels_dir(),
                   "result": str(result_path), **(extra or {})}
        command = [toolchain.python, "-c", _BOOT.format(started=_STARTED, root=str(_package_root()))]
        try:
            done = _run_worker_process(toolchain, command, json.dumps(request), packages)
        except OSError as error:
            v = toolchain.version
            raise UsageError(f"Triton {v} toolchain cannot run ({error.strerror}): "
                             f"`ttinspect toolchains --remove {v} --add {v}`") from error
        _relay_warnings(done.stderr)
        try:
            result = json.loads(result_path.read_text())
        except (OSError, ValueError):
            if done.returncode < 0:  # killed by a signal: Triton's C++ crashed (or ran out of memory)
                import signal  # only to name the signal of a crash

                why = f"it crashed ({signal.Signals(-done.returncode).name})"
            else:
                why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}, no output"])[-1]
            raise TTInspectError(f"Triton {toolchain.version} worker failed: {why}") from None
    return result



def _run_worker_process(toolchain: Toolchain, command: list[str], request: str,
                        packages: dict[str, str]) -> subprocess.CompletedProcess:
    """The worker run to its end, once it has said it started within START_SECONDS (else it is killed and
    that is the one line). The user's imports there keep this process's --import-timeout."""
    seconds, source = import_limit()
    # the worker's messages name its Triton as the toolchain's, and this machine's as the caller's (worker_env.py)
    env = {**os.environ, **for_worker(installed_version(), packages)}
    if source != "the default":
        env[IMPORT_TIMEOUT_ENV] = repr(seconds)
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env) as process:
        try:
            assert process.stdout is not None  # PIPE
            if not select.select([process.stdout], [], [], START_SECONDS)[0]:
                process.kill()
                raise ToolError(f"Triton {toolchain.version} toolchain: its python {toolchain.python} did not start "
                                f"within {START_SECONDS:g} s; stopped (`{toolchain.python} -c 'import triton'` "
                                "shows why)")
            os.read(process.stdout.fileno(), len(_STARTED) + 1)  # unbuffered: the rest is communicate()'s
            out, err = process.communicate(request)
        except BaseException:
            process.kill()
            raise
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def _relay_warnings(stderr: str) -> None:
    """The worker's one-line warnings (a package `__init__` skipped, a damaged cache entry) are the user's
    too: said here, once each."""
    for line in stderr.splitlines():
        if line.startswith(WARNING):
            warn(line[len(WARNING):])

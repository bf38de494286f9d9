"""Runs inside a toolchain's environment: resolves one reference with *that* Triton (compiling into the
shared, content-addressed cache, whose keys hold the Triton version) and writes the build records as JSON
to the file the caller names. Facts, diffs and rendering stay in the caller's process.

Started by toolchains/remote.py as `python -c` with this checkout appended to sys.path — after the
environment's own site-packages, so its Triton is the one imported. Every ttinspect import happens inside
run(): one that fails under that Triton is then answered by main() in the result file, like any failure.
A user's code that imports a package this environment lacks (torch) is answered with that module's name
and where it was imported: the caller installs it there (toolchains/packages.py) and asks again.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import os
import traceback
from pathlib import Path


def _load_kernels(path: str | None) -> None:
    """The shipped kernels as `ttinspect_kernels` (an editable install maps the name onto kernels/)."""
    if not path or "ttinspect_kernels" in sys.modules:
        return
    init = Path(path) / "__init__.py"
    spec = importlib.util.spec_from_file_location("ttinspect_kernels", init, submodule_search_locations=[path])
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["ttinspect_kernels"] = module
    spec.loader.exec_module(module)


def run(request: dict) -> dict:
    from ttinspect.errors import TTInspectError  # in run(): an import failure is answered (module docstring)
    from ttinspect.refs.failed import Failed  # as above
    from ttinspect.refs.resolver import RefOptions, resolve  # as above

    from ttinspect.refs.loading import install_missing_dependencies  # as above

    install_missing_dependencies()  # a dependency a package's __init__ lacks here is installed, not skipped
    settings, args, signature, config, arch = request["options"]
    absent = _absent_module(request)
    if absent:
        return absent
    try:
        options = RefOptions.from_cli(tuple(settings), tuple(args), signature, config, arch)
        if request.get("history"):  # the pass history, kept in each build's entry for the caller to read
            from ttinspect.engine.builds import compile_with_pass_dumps  # in run(): see the module docstring
            from ttinspect.passes import history  # as above

            with compile_with_pass_dumps():
                builds = resolve(request["ref"], options)
            for built in builds:
                history(built)
        else:
            builds = resolve(request["ref"], options, keep_going=request.get("keep_going", False))
    except TTInspectError as error:
        debug = {"traceback": "".join(traceback.format_exception(error.__cause__))} \
            if os.environ.get("TTINSPECT_DEBUG") and error.__cause__ is not None else {}
        return {"error": str(error), "type": type(error).__name__, "exit_code": error.exit_code,
                **missing_module(error), **debug}
    files = {}
    from ttinspect.refs.kinds import SOURCE_KINDS, kind_of, parse_source_ref  # in run(): see the module docstring

    kind = request.get("kind") or kind_of(request["ref"])
    if kind in SOURCE_KINDS:  # what the kernel was made of: the caller's record checks them
        from ttinspect.refs.userfile import user_files  # in run(): see the module docstring

        source = parse_source_ref(request["ref"])
        files = user_files(source.path, source.own_folder)
    out = []
    for built in builds:
        if isinstance(built, Failed):
            out.append({"failed": {"label": built.label, "note": built.note, "error": built.error}})
        else:
            out.append({"build": built.record()})
    return {"builds": out, "files": files}


def _absent_module(request: dict) -> dict:
    """A module reference (`pkg.mod:kernel`) whose package the caller's environment has and this one lacks:
    answered like a missing import, so that the caller installs that package here. The caller says what
    kind the reference is: `mod:kernel` is a module there only because its environment finds `mod`."""
    if request.get("kind") != "module":
        return {}
    from ttinspect.refs.packages import findable, module_head  # in run(): see the module docstring

    head = module_head(request["ref"])
    top = head.partition(".")[0]
    if findable(top):
        return {}
    return {"error": f"{head}: no module named {top!r} in this environment", "type": "UsageError", "exit_code": 2,
            "missing_module": top, "missing_at": f"the reference {head}"}


def missing_module(error: BaseException) -> dict:
    """The top-level module the user's code imported and this environment lacks (a ModuleNotFoundError in the
    error's chain) and where it was imported (the innermost frame of a file); {} when there is none, or when
    it is a submodule missing from a package that is installed (another release's API: nothing to install)."""
    from ttinspect.errors import cause_chain  # inside: see the module docstring

    for cause in cause_chain(error):
        if isinstance(cause, ModuleNotFoundError) and cause.name:
            top = cause.name.partition(".")[0]
            try:
                present = importlib.util.find_spec(top) is not None
            except (ImportError, ValueError):  # a module without a spec: present, whatever it is
                present = True
            if present:
                return {}
            frames = [f for f in traceback.extract_tb(cause.__traceback__) if not f.filename.startswith("<")]
            where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else None
            return {"missing_module": top, "missing_at": where}
    return {}


def main() -> None:
    # in main(): see the module docstring (this one imports nothing of Triton's)
    from ttinspect.refs.leftover_threads import exit_without_waiting, own_process

    own_process()  # the worker is ttinspect's own process: the user's imports bounded, their threads not waited on
    request = json.loads(sys.stdin.read())
    _load_kernels(request.get("kernels"))
    try:
        result = run(request)
    except Exception as error:  # a bug, or a Triton this ttinspect cannot drive: said in one line
        result = {"error": f"{type(error).__name__}: {error}", "type": "internal", "exit_code": 70}
    Path(request["result"]).write_text(json.dumps(result))
    exit_without_waiting(0)  # a thread the user's file left running does not keep the caller waiting


if __name__ == "__main__":
    main()

"""Runs inside a toolchain's environment: resolves one reference with *that* Triton (compiling into the
shared, content-addressed cache, whose keys hold the Triton version) and writes the build records as JSON
to the file the caller names. Facts, diffs and rendering stay in the caller's process.

Started by toolchains/remote.py as `python -c` with this checkout appended to sys.path — after the
environment's own site-packages, so its Triton is the one imported. Every ttinspect import happens inside
run(): one that fails under that Triton is then answered by main() in the result file, like any failure.
"""

from __future__ import annotations

import importlib.util
import json
import sys
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

    settings, args, signature, config, arch = request["options"]
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
        return {"error": str(error), "type": type(error).__name__, "exit_code": error.exit_code}
    files = {}
    from ttinspect.refs.kinds import kind_of  # in run(): see the module docstring

    if kind_of(request["ref"]) == "file":  # what the kernel was made of: the caller's record checks them
        from ttinspect.refs.userfile import parse_file_ref, user_files  # in run(): see the module docstring

        files = user_files(parse_file_ref(request["ref"]).path)
    out = []
    for built in builds:
        if isinstance(built, Failed):
            out.append({"failed": {"label": built.label, "note": built.note, "error": built.error}})
        else:
            out.append({"build": built.record()})
    return {"builds": out, "files": files}


def main() -> None:
    request = json.loads(sys.stdin.read())
    _load_kernels(request.get("kernels"))
    try:
        result = run(request)
    except Exception as error:  # a bug, or a Triton this ttinspect cannot drive: said in one line
        result = {"error": f"{type(error).__name__}: {error}", "type": "internal", "exit_code": 70}
    Path(request["result"]).write_text(json.dumps(result))


if __name__ == "__main__":
    main()

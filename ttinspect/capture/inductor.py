"""torch.compile's Triton kernels in a capture. Inductor writes each kernel as a @triton.jit function in a
generated file, compiles it with `triton.compile(ASTSource(...))` — in the program or in its compile workers
(processes of their own, captured too) — and launches it through its own launcher, never through
`JITFunction.run`. So:
- a compile made from inside torch/_inductor is recorded with "inductor": true; its "file" is Inductor's
  generated file (the kernel's own source);
- `CachingAutotuner.run` (torch._inductor.runtime.triton_heuristics, wrapped once that module is imported)
  is where the program launches a kernel: the launch is counted against the compile of the launcher it ran,
  found by the name Inductor gives the compile (its Triton cache key as a path, `cache_hash`); the launch
  site is the program's line that called the compiled function (Inductor's generated code is machinery). When the
  compile happened in a worker, the program's own record of it is made from what Inductor keeps to compile
  it (`_create_compile_meta` / `_create_compile_options`, as `_precompile_config` calls them): the same
  ASTSource, options and target, and the Triton cache entry the worker wrote (its folder is the launcher's
  `cache_hash`). Inductor drops such a kernel's Python function before sending it back
  (`CachingAutotuner.prepare_for_pickle`), so where it is defined is read from the generated file
  (`CachingAutotuner.filename`) and the JITFunction's name;
- the grid is computed inside Inductor's generated launcher: not recorded (None).
Everything torch-specific here is read with getattr and guarded: another torch is skipped with a warning line.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

from ttinspect.capture import counting, launches, triton_hooks, tuning
from ttinspect.capture.compile_record import compile_record
from ttinspect.capture.hook_errors import guarded
from ttinspect.files.source_files import read_regular

MODULE = "torch._inductor.runtime.triton_heuristics"
_ids: dict[str, str] = {}  # Inductor's name for a compile (cache_hash) -> compile id


def compiling() -> bool:
    """Is Triton's compile being called from inside torch Inductor (a frame of torch/_inductor)?"""
    frame: Any = sys._getframe(2)
    while frame is not None:
        if "torch/_inductor/" in frame.f_code.co_filename.replace("\\", "/"):
            return True
        frame = frame.f_back
    return False


def path_key(triton_hash: str | None) -> str | None:
    """Inductor's name for a compile: Triton's cache key as its cache folder names it."""
    utils = sys.modules.get("torch._inductor.runtime.runtime_utils")
    convert = getattr(utils, "triton_hash_to_path_key", None)
    return convert(triton_hash) if convert is not None and triton_hash else triton_hash


def compiled(triton_hash: str | None, compile_id: str, file: str | None) -> None:
    """An Inductor compile was recorded: its launches will name it; its generated code is machinery (the
    launch site is the program's line that called the compiled function)."""
    key = path_key(triton_hash)
    if key:
        _ids[key] = compile_id
    if file:
        launches.add_machinery(os.path.dirname(os.path.dirname(file)))


def run_wrapper(original: Callable[..., Any], current: Callable[[], Any]) -> Callable[..., Any]:
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        session = current()
        if session is not None and not kwargs.get("benchmark_run"):
            guarded(_launched, session, self, args)
        return result

    return run


def _launched(session: Any, autotuner: Any, args: tuple) -> None:
    chosen: Any = getattr(autotuner, "launchers", None) or ()
    if len(chosen) != 1:
        return
    key = getattr(chosen[0], "cache_hash", None) or ""
    compile_id = _ids.get(key)
    if compile_id is None:
        compile_id = _ids[key] = _record_from_autotuner(session, autotuner, chosen[0]) or ""
    if not compile_id:
        return
    signature = (getattr(autotuner, "triton_meta", None) or {}).get("signature", {}) or {}
    names = tuple(name for name, kind in signature.items() if kind != "constexpr")
    counting.launched(session, (compile_id, names, frozenset()), None, None, args, {}, sys._getframe(2))


def _record_from_autotuner(session: Any, autotuner: Any, launcher: Any) -> str | None:
    """The compile of `launcher` as Inductor made it in a worker, recorded here from what it compiled with."""
    from triton.compiler.compiler import ASTSource  # triton is loaded: Inductor launches its kernels

    config = launcher.config
    meta = autotuner._create_compile_meta(config)
    options = autotuner._create_compile_options(config, meta)
    fn = autotuner.fn
    src = ASTSource(fn, meta["signature"], meta["constants"], meta["configs"][0])
    warp_size = getattr(getattr(autotuner, "device_props", None), "warp_size_or_default", None) or 32
    target = {"backend": meta["device_type"], "arch": meta["cc"], "warp_size": warp_size}
    path_key = getattr(launcher, "cache_hash", None)
    cache_dir = triton_hooks.cache_dir_of_path_key(path_key)
    options = {**(triton_hooks.option_defaults(target) or {}), **options}
    if cache_dir and options.get("ptx_version") is None:  # as hooks.py records it: the version its ptxas chose
        options["ptx_version"] = triton_hooks.ptx_text_version(_read(os.path.join(cache_dir, f"{fn.__name__}.ptx")))
    record = compile_record(triton_hooks.python_function(fn), session, params=triton_hooks.kernel_params(fn),
                            signature=src.signature, constants=src.constants, attrs=src.attrs,
                            options=options, target=target, cache_key=None, cache_dir=cache_dir, inductor=True,
                            autotuned=tuning.autotuned())
    if record["file"] is None:
        record.update(_in_generated_file(session, fn, getattr(autotuner, "filename", None)))
    compile_id = session.add_compile(record)
    if compile_id is not None and record["file"]:
        launches.add_machinery(os.path.dirname(os.path.dirname(record["file"])))
    return compile_id


def _in_generated_file(session: Any, fn: Any, filename: str | None) -> dict[str, Any]:
    """name/qualname/module/file/def_line/sha256/sources of a kernel whose Python function Inductor dropped:
    the JITFunction keeps its name; the generated file holds its `def`."""
    name = getattr(fn, "__name__", None)
    if not name or not filename or not os.path.isfile(filename):
        return {}
    file = os.path.abspath(filename)
    lines = (_read(file) or "").splitlines()
    line = next((n for n, text in enumerate(lines, 1) if text.startswith(f"def {name}(")), None)
    if line is None:
        return {}
    sha = session.add_source(file)
    return {"name": name, "qualname": name, "module": None, "file": file,
            "def_line": line, "sha256": sha, "sources": {file: sha} if sha else {}}


def _read(path: str) -> str | None:
    data = read_regular(path)
    return data.decode("utf-8", errors="replace") if data is not None else None


def reset() -> None:
    _ids.clear()

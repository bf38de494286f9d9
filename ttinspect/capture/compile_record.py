"""One compile as the capture records it (docs/capture.md, "compile"): where the kernel lives (file, `def`
line, the files of the @triton.jit functions it calls, each by sha256), its specialization as ttinspect's
`--signature` text (signature_text.py), its constexprs, options and target, and where the run's Triton cache
keeps its files. Built the same way for a real compile (hooks.py) and for an interpreted launch
(interpreter.py); the session keeps one record per distinct content."""

from __future__ import annotations

import inspect
import os
from typing import Any, Mapping, Sequence

from ttinspect.capture import triton_hooks
from ttinspect.capture.signature_text import constexpr_json, signature_text
from ttinspect.files.source_files import def_line

_MAX_CALLED = 64  # @triton.jit functions followed from one kernel (a bound on the walk, not a limit in practice)


def where_defined(function: Any, session: Any) -> dict[str, Any]:
    """name/qualname/module/file/def_line/sha256/sources of a kernel's Python function."""
    code = getattr(function, "__code__", None)
    file = os.path.abspath(code.co_filename) if code is not None else None
    sha = session.add_source(file) if file and os.path.isfile(file) else None
    sources = {file: sha} if file and sha else {}
    for called in called_files(function):
        if called not in sources:
            digest = session.add_source(called)
            if digest:
                sources[called] = digest
    return {"name": getattr(function, "__name__", "?"), "qualname": getattr(function, "__qualname__", None),
            "module": getattr(function, "__module__", None), "file": file, "def_line": def_line(function),
            "sha256": sha, "sources": sources}


def called_files(function: Any) -> list[str]:
    """The files of the @triton.jit functions the kernel calls, directly or through others: names its code
    reads from its globals (`helper(...)`, `mod.helper(...)`) that are JIT functions, followed in turn."""
    seen: set[int] = {id(function)}
    files: list[str] = []
    todo = [function]
    while todo and len(seen) < _MAX_CALLED:
        current = todo.pop()
        names = _global_names(current)
        scope = getattr(current, "__globals__", {})
        for name in names:
            value = scope.get(name)
            candidates = [value] + [vars(value).get(n) for n in names] if inspect.ismodule(value) else [value]
            for candidate in candidates:
                inner = triton_hooks.python_function(candidate) if triton_hooks.is_jit_function(candidate) else None
                if inner is None or id(inner) in seen:
                    continue
                seen.add(id(inner))
                todo.append(inner)
                path = os.path.abspath(inner.__code__.co_filename)
                if path not in files:
                    files.append(path)
    return files


def _global_names(function: Any) -> tuple[str, ...]:
    code = getattr(function, "__code__", None)
    if code is None:
        return ()
    names = list(code.co_names)
    for const in code.co_consts:  # nested functions and comprehensions read globals too
        if inspect.iscode(const):
            names.extend(const.co_names)
    return tuple(dict.fromkeys(names))


def compile_record(function: Any, session: Any, *, params: Sequence[Any], signature: Mapping[str, Any],
                   constants: Mapping[Any, Any], attrs: Mapping[Any, Any], options: Mapping[str, Any],
                   target: dict[str, Any] | None, cache_key: str | None, cache_dir: str | None,
                   inductor: bool, autotuned: dict[str, Any] | None) -> dict[str, Any]:
    """The record's fields (the session adds "type" and "id"). `params`: the kernel's KernelParams;
    `signature`/`constants`/`attrs`: the ASTSource's (or the interpreter's equivalent)."""
    names = [p.name for p in params]
    dtypes = triton_hooks.dtype_names()
    text = signature_text(names, signature, constants, attrs, dtypes)
    constexprs = {p.name: constexpr_json(constants[(i,)], dtypes) for i, p in enumerate(params)
                  if p.is_constexpr and (i,) in constants}
    record = where_defined(function, session)
    record.update({"inductor": inductor, "params": names, "signature": text.text, "constexprs": constexprs,
                   "options": recorded_options(options, target), "target": target, "triton_cache_key": cache_key,
                   "triton_cache_dir": cache_dir, "autotuned": autotuned})
    if text.problem:
        record["signature_problem"] = text.problem
    if cache_key is not None:  # a real compile: the ptxas that made its cubin (another one may allocate otherwise)
        record["ptxas"] = triton_hooks.ptxas(target)
    return record


def recorded_options(options: Mapping[str, Any], target: dict[str, Any] | None) -> dict[str, Any]:
    """num_warps, num_stages, num_ctas, maxnreg and enable_fp_fusion always; any other option only where it
    differs from what the target's backend parses from no options (what the program asked for). Without a
    target (the interpreter, no GPU) only the options the launch passed are known: those are recorded."""
    defaults = triton_hooks.option_defaults(target)
    out: dict[str, Any] = {}
    for key, value in options.items():
        if defaults is None:
            keep = True
        elif key in triton_hooks.ALWAYS_RECORDED:
            keep = key in defaults
        else:
            keep = key in defaults and _plain(value) != _plain(defaults[key])
        if keep:
            out[key] = _plain(value)
    return out


def _plain(value: Any) -> Any:
    """Tuples as lists, as JSON (and a compile's metadata.json) has them, so both compare alike."""
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    return value

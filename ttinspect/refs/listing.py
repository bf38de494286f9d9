"""`ttinspect list FILE`: the kernels a user's file defines and the examples it declares."""

from __future__ import annotations

from typing import Any

from ttinspect.errors import UsageError
from ttinspect.refs.userfile import describe_kernel, examples_in, is_file_ref, kernels_in, load_module, parse_file_ref


def list_file(text: str) -> dict[str, Any]:
    if not is_file_ref(text):
        raise UsageError(f"{text!r} is not a Python file (a path ending in .py, or containing /)")
    ref = parse_file_ref(text)
    module = load_module(ref.path)
    kernels = [describe_kernel(name, obj) for name, obj in kernels_in(module).items()]
    examples = examples_in(module, ref.path)
    return {
        "file": str(ref.path),
        "kernels": [{"name": k.name, "kind": k.kind, "line": k.line, "params": list(k.params),
                     "constexprs": list(k.constexprs), "autotune_configs": k.configs} for k in kernels],
        "examples": [{"name": e.name, "kernel": e.kernel_name, "description": e.description,
                      "args": {k: repr(v) if not isinstance(v, (int, float, str, bool)) else v
                               for k, v in e.args.items()},
                      "signature": e.signature, "config": {k: getattr(v, "name", v) for k, v in e.config.items()},
                      "autotune_config": e.autotune_config, "arch": e.arch} for e in examples.values()],
    }

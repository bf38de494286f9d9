"""ttinspect: what the Triton compiler did with a kernel, for any NVIDIA target, without a GPU.

The public API is imported lazily so that `import ttinspect` (and so the CLI) stays cheap:

    from ttinspect import build
    result = build("opt", {"num_stages": 3}, arch="sm_90")
    result.artifacts.text("ptx")
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["build", "build_jit", "Build", "Artifacts", "all_variants", "get_variant", "TTInspectError",
           "CompileError", "UsageError"]

_EXPORTS = {
    "build": "engine", "build_jit": "engine", "Build": "engine", "Artifacts": "artifacts",
    "all_variants": "variants", "get_variant": "variants", "TTInspectError": "errors",
    "CompileError": "errors", "UsageError": "errors",
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'ttinspect' has no attribute {name!r}")

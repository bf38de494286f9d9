"""ttinspect: what the Triton compiler did with a kernel, for any NVIDIA target, without a GPU.

The public API is imported lazily so that `import ttinspect` (and so the CLI) stays cheap:

    from ttinspect import inspect, diff
    r = inspect("opt", arch="sm_90", num_stages=3)
    assert r.pipeline_depth == 3
    d = diff("naive", "opt")            # d.changes: every changed fact with its explanation
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__all__ = ["inspect", "diff", "report_from_build", "diff_reports", "Report", "Diff", "Change", "Fact", "build",
           "build_jit", "Build", "Artifacts", "Pointer", "TensorDesc", "all_variants", "get_variant",
           "TTInspectError", "CompileError", "UsageError", "offline_imports"]

_EXPORTS = {
    "inspect": "report", "Report": "report", "report_from_build": "report",
    "diff_reports": "compare", "diff": "compare", "Diff": "compare", "Change": "compare",
    "Fact": "facts.model", "Pointer": "variants", "TensorDesc": "variants",
    "build": "engine", "build_jit": "engine", "Build": "engine", "Artifacts": "artifacts",
    "all_variants": "variants", "get_variant": "variants", "TTInspectError": "errors",
    "CompileError": "errors", "UsageError": "errors", "offline_imports": "compile",
}


if TYPE_CHECKING:  # what type checkers see; at run time __getattr__ imports each name on first use
    from .artifacts import Artifacts
    from .compare import Change, Diff, diff, diff_reports
    from .compile import offline_imports
    from .engine import Build, build, build_jit
    from .errors import CompileError, TTInspectError, UsageError
    from .facts.model import Fact
    from .report import Report, inspect, report_from_build
    from .variants import Pointer, TensorDesc, all_variants, get_variant


def __dir__() -> list[str]:  # the public names first-class for help(), completion in a REPL
    return sorted(set(__all__) | set(globals()))


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'ttinspect' has no attribute {name!r}")

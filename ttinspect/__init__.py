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
           "TTInspectError", "CompileError", "UsageError", "offline_imports", "capture", "predict", "rank",
           "Prediction"]

_EXPORTS = {
    "inspect": "api", "Report": "api", "report_from_build": "api", "diff_reports": "api", "diff": "api",
    "Diff": "api",
    "Change": "compare.facts_diff", "Fact": "facts.model", "Pointer": "kernel.argument_types",
    "TensorDesc": "kernel.argument_types", "build": "engine.builds", "build_jit": "engine.builds",
    "Build": "engine.builds", "Artifacts": "engine.artifacts", "all_variants": "kernel.catalog",
    "get_variant": "kernel.catalog", "TTInspectError": "errors", "CompileError": "errors", "UsageError": "errors",
    "offline_imports": "compile.jit", "capture": "capture", "predict": "perf", "rank": "perf",
    "Prediction": "perf",
}


if TYPE_CHECKING:  # what type checkers see; at run time __getattr__ imports each name on first use
    from ttinspect.engine.artifacts import Artifacts
    from ttinspect.api import Diff, Report, diff, diff_reports, inspect, report_from_build
    from ttinspect.capture import capture
    from ttinspect.compare.facts_diff import Change
    from ttinspect.compile.jit import offline_imports
    from ttinspect.engine.builds import Build, build, build_jit
    from ttinspect.errors import CompileError, TTInspectError, UsageError
    from ttinspect.facts.model import Fact
    from ttinspect.kernel.catalog import all_variants, get_variant
    from ttinspect.kernel.argument_types import Pointer, TensorDesc
    from ttinspect.perf.model import Prediction
    from ttinspect.perf.predict import predict, rank


def __dir__() -> list[str]:  # the public names first-class for help(), completion in a REPL
    return sorted(set(__all__) | set(globals()))


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'ttinspect' has no attribute {name!r}")

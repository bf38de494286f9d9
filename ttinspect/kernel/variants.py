"""A kernel variant and a variant with its overrides applied.

A variant is pure data: which `@triton.jit` function (named by "module:function", so that listing
variants or reading a cached artifact never imports triton), its default config, the problem it is
compiled for, and a launcher (also by name) that runs it on torch tensors. The variants themselves
live in the `ttinspect_kernels` package (the repository's `kernels/` folder; catalog.py finds them);
overrides.py applies `--set`.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping

from ttinspect.errors import UsageError
from ttinspect.kernel.argument_types import TlDtype


@dataclass(frozen=True)
class Variant:
    name: str
    kernel: str  # "module:function" of the @triton.jit function
    seed: str  # which seed document it comes from, e.g. "003"
    description: str
    config: Mapping[str, Any]  # constexpr defaults + OPTION_KEYS
    problem: Mapping[str, Any]  # the problem sizes, e.g. {"M": 4096, "N": 4096, "K": 4096}
    make_args: Callable[[Mapping[str, Any], Mapping[str, Any]], dict]  # (problem, config) -> {param: value}
    launcher: str  # "module:function", called as launcher(*tensors, **config) -> torch tensor
    aliases: tuple[str, ...] = ()
    autotune_configs: tuple[Mapping[str, Any], ...] = ()
    notes: str = ""
    # the launcher's grid, as data: (the launch's values by name — problem, arguments, config — and the
    # device's SM count) -> the grid; what predict() uses when no grid is given (a launcher's own is code)
    grid: Callable[[Mapping[str, Any], int], tuple[int, ...]] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "config", MappingProxyType(dict(self.config)))
        object.__setattr__(self, "problem", MappingProxyType(dict(self.problem)))

    @property
    def module(self) -> str:
        return self.kernel.partition(":")[0]

    @property
    def function(self) -> str:
        return self.kernel.partition(":")[2]

    def settable_keys(self) -> tuple[str, ...]:
        return tuple(self.config) + tuple(k for k in self.problem if k not in self.config)

    def load_kernel(self) -> Any:
        """Import the kernel's module (this imports triton) and return the JIT function."""
        return _resolve(self.kernel)

    def load_launcher(self) -> Callable[..., Any]:
        return _resolve(self.launcher)


def _resolve(ref: str) -> Any:
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def module_source_path(module: str) -> str:
    """The file a module lives in, found without executing it (so without importing triton)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise UsageError(f"cannot find the kernel module {module!r}")
    return spec.origin


@dataclass(frozen=True)
class Resolved:
    """A variant with its overrides applied: what gets compiled."""

    variant: Variant
    config: Mapping[str, Any]
    problem: Mapping[str, Any]

    def args(self) -> dict[str, Any]:
        return self.variant.make_args(self.problem, self.config)

    def label(self) -> str:
        changed = [f"{k}={config_value_text(v)}" for k, v in {**self.config, **self.problem}.items()
                   if self.variant.config.get(k, self.variant.problem.get(k)) != v]
        return self.variant.name + (":" + ",".join(changed) if changed else "")


# The repr of a dtype as a warm build's record keeps it (engine.builds.for_cache_key writes repr()):
# Triton's own dtype (`triton.language.bfloat16`) and ttinspect's TlDtype (`TlDtype(name='bfloat16')`).
_DTYPE_REPRS = (re.compile(r"triton\.language\.(\w+)"), re.compile(r"TlDtype\(name='(\w+)'\)"))


def config_value_text(value: Any) -> str:
    """A config value as labels, headers, tables and pages show it. A dtype constexpr is written as Triton
    source writes it, `tl.bfloat16` (what `--set KEY=tl.bfloat16` takes back), whichever form holds it: a
    TlDtype (`--set`, the shipped variants), Triton's own dtype object (an autotune config; its str is the
    short `bf16`), or the repr of either kept in a warm build's record."""
    if isinstance(value, TlDtype):
        return f"tl.{value.name}"
    if isinstance(value, str):
        text = value
    elif type(value).__module__.startswith("triton.language"):  # a dtype's repr names it as source does
        text = repr(value)
    else:
        text = str(value)
    for pattern in _DTYPE_REPRS:
        match = pattern.fullmatch(text)
        if match:
            return f"tl.{match.group(1)}"
    return text


def config_value_json(value: Any) -> Any:
    """A config value in `--json`: numbers, booleans and None as themselves, anything else as its text."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return config_value_text(value)

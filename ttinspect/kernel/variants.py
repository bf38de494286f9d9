"""The registry of kernel variants and how `--set KEY=VALUE` overrides apply.

A variant is pure data: which `@triton.jit` function (named by "module:function", so that listing
variants or reading a cached artifact never imports triton), its default config, the problem it is
compiled for, and a launcher (also by name) that runs it on torch tensors. The variants themselves
live in the `ttinspect_kernels` package (the repository's `kernels/` folder).
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping

from ttinspect.errors import UsageError

# Compile options that travel beside the constexprs in a config (Triton's `triton.Config` keeps
# them apart; a user thinks of them as one list of knobs).
OPTION_KEYS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


@dataclass(frozen=True)
class Pointer:
    """A tensor argument as a launch would pass it: element type and whether it is 16-byte aligned."""

    dtype: str  # Triton's short name: "fp16", "fp32", "bf16", "i32", ...
    aligned: bool = True


@dataclass(frozen=True)
class Scalar:
    """A scalar argument known by its type and the properties a launch specializes on, not its value —
    what `--signature "i32:16"` (divisible by 16) or `"i32:1"` (equal to 1) says."""

    dtype: str  # "i32", "i64", "u64", "fp32", ...
    divisible_by_16: bool = False
    equal_to_1: bool = False


@dataclass(frozen=True)
class TensorDesc:
    """A host-side TMA tensor descriptor argument (triton.tools.tensor_descriptor.TensorDescriptor)."""

    dtype: str  # "fp16"
    block_shape: tuple[int, ...]  # the tile one load moves, e.g. (128, 64)


@dataclass(frozen=True)
class TlDtype:
    """A constexpr whose value is a `tl.<name>` dtype (e.g. seed 004's TYPE_C). Resolved at compile time."""

    name: str  # attribute of triton.language: "float16", "float32", ...


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
        changed = [f"{k}={v}" for k, v in {**self.config, **self.problem}.items()
                   if self.variant.config.get(k, self.variant.problem.get(k)) != v]
        return self.variant.name + (":" + ",".join(changed) if changed else "")


def _registry() -> dict[str, Variant]:
    from ttinspect_kernels.registry import VARIANTS  # pure data: does not import triton

    return {v.name: v for v in VARIANTS}


def all_variants() -> list[Variant]:
    return list(_registry().values())


def get_variant(name: str) -> Variant:
    variants = _registry()
    by_name = {alias: v for v in variants.values() for alias in (v.name, *v.aliases)}
    if name in by_name:
        return by_name[name]
    near = difflib.get_close_matches(name, list(by_name), n=3, cutoff=0.4)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise UsageError(f"unknown variant {name!r}{hint} (`ttinspect list` shows them all)")


def parse_value(text: str) -> Any:
    """`--set` values: ints (also 0x..), floats, true/false, `tl.float16`-style dtypes, else strings."""
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for convert in (lambda s: int(s, 0), float):
        try:
            return convert(text)
        except ValueError:
            pass
    if lowered.startswith("tl."):
        return TlDtype(text.strip()[3:])
    return text


def parse_settings(items: list[str] | tuple[str, ...], ref: str | None = None) -> dict[str, Any]:
    """KEY=VALUE items: `--set`'s, or (`ref` given) those of a reference `NAME:k=v,...`."""
    settings: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            if ref is not None:
                raise UsageError(f"malformed reference {ref!r}: after NAME: come KEY=VALUE overrides "
                                 f"(e.g. opt:num_stages=3), got {item!r}")
            raise UsageError(f"--set takes KEY=VALUE, got {item!r}")
        settings[key.strip()] = parse_value(value)
    return settings


def resolve(variant: Variant | str, overrides: Mapping[str, Any] | None = None) -> Resolved:
    variant = get_variant(variant) if isinstance(variant, str) else variant
    config, problem = dict(variant.config), dict(variant.problem)
    for key, value in (overrides or {}).items():
        if key in config:
            config[key] = value
        elif key in problem:
            problem[key] = value
        elif key in OPTION_KEYS:
            config[key] = value
        else:
            valid = ", ".join(variant.settable_keys() + tuple(k for k in OPTION_KEYS if k not in config))
            raise UsageError(f"unknown --set key {key!r} for {variant.name}; valid keys: {valid}")
        _check_value(variant, key, value)
    _check_tile(variant, config)
    return Resolved(variant, MappingProxyType(config), MappingProxyType(problem))


DTYPES = ("fp16", "bf16", "fp32", "fp8e4nv", "fp8e5")
# A tile whose fp32 accumulator needs this many values per thread cannot live in 255 registers by far:
# Triton would spend minutes (and many GB) compiling it only to spill everything. Refused up front.
MAX_ACCUMULATOR_PER_THREAD = 2048


# The compile options' valid values: Triton takes them as C++ ints (a huge one fails deep inside with
# pybind's "Invoked with types ..."), and warps come in powers of two.
OPTION_RANGES = {"num_warps": (1, 2, 4, 8, 16, 32), "num_stages": range(1, 33), "num_ctas": (1, 2, 4, 8, 16),
                 "maxnreg": range(16, 256)}


def check_option(key: str, value: Any, origin: str = "--set") -> None:
    """A compile option's value, for shipped variants and user kernels alike. `origin` names where the
    value came from (`--set`, or e.g. "autotune config 2 of matmul sets"), so the error blames it."""
    allowed = OPTION_RANGES.get(key)
    if allowed is None:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value not in allowed:
        if isinstance(allowed, range):
            raise UsageError(f"{origin} {key}={_short(value)}: must be an integer from {allowed.start} to "
                             f"{allowed.stop - 1}")
        raise UsageError(f"{origin} {key}={_short(value)}: must be one of {', '.join(map(str, allowed))}")


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _check_value(variant: Variant, key: str, value: Any) -> None:
    """A value of the wrong kind is refused here, with the valid ones, not deep inside Triton."""
    default = variant.config.get(key, variant.problem.get(key))
    if key == "dtype":
        if value not in DTYPES:
            raise UsageError(f"--set dtype={value}: valid dtypes are {', '.join(DTYPES)}")
        return
    check_option(key, value)
    if key in OPTION_KEYS:
        return
    if isinstance(default, int) and not isinstance(default, bool):
        if not isinstance(value, int) or isinstance(value, bool) or value < (0 if "GROUP" in key else 1):
            least = "a non-negative" if "GROUP" in key else "a positive"
            raise UsageError(f"--set {key}={value}: must be {least} integer")
        if value >= 2 ** 63:  # Triton types an int as i32 or i64; beyond, it fails with "Nonrepresentable integer"
            raise UsageError(f"--set {key}={_short(value)}: must fit in a signed 64-bit integer")
    elif isinstance(default, bool) and not isinstance(value, bool):
        raise UsageError(f"--set {key}={value}: must be true or false")
    elif isinstance(default, TlDtype) and not isinstance(value, TlDtype):
        raise UsageError(f"--set {key}={value}: must be a Triton dtype such as tl.float16")


def _check_tile(variant: Variant, config: Mapping[str, Any]) -> None:
    rows = next((config[k] for k in ("BLOCK_SIZE_M", "BLOCK_M") if k in config), None)
    cols = next((config[k] for k in ("BLOCK_SIZE_N", "BLOCK_N") if k in config), None)
    if not isinstance(rows, int) or not isinstance(cols, int):
        return
    threads = 32 * int(config.get("num_warps", 4))
    per_thread = rows * cols // threads
    if per_thread > MAX_ACCUMULATOR_PER_THREAD:
        raise UsageError(f"{variant.name}: a {rows}x{cols} tile on {threads} threads needs {per_thread} fp32 "
                         f"accumulator values per thread (a thread has at most 255 registers); Triton would "
                         f"take minutes to compile and spill it. Use smaller blocks or more warps")



@dataclass(frozen=True)
class Ref:
    """A variant as written on the command line: `opt`, `opt:num_stages=3,BLOCK_SIZE_N=64`,
    `opt@sm_90`, `opt:num_stages=3@sm_90`."""

    resolved: Resolved
    arch: str | None


def parse_ref(text: str, settings: list[str] | tuple[str, ...] | Mapping[str, Any] = (), arch: str | None = None,
              config: str | None = None) -> Ref:
    """`config`: `best` (the saved autotune winner) or N (the N-th autotune config), applied first;
    the reference's own `:k=v` overrides and then `settings` (`--set`) win over it."""
    name, _, ref_arch = text.partition("@")
    name, _, inline = name.partition(":")
    inline_items = [item for item in inline.split(",") if item.strip()] if inline else []
    overrides: dict[str, Any] = {}
    if config:
        from ttinspect.autotune.results import config_overrides

        overrides.update(config_overrides(get_variant(name), config))
    overrides.update(parse_settings(inline_items, ref=text))
    overrides.update(settings if isinstance(settings, Mapping) else parse_settings(list(settings)))
    return Ref(resolve(name, overrides), ref_arch or arch)

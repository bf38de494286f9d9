"""How `--set KEY=VALUE` (and a reference's own `NAME:k=v`) overrides apply to a variant: values parsed
from text, keys and values checked against the variant, the result a `Resolved` ready to compile."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping

from ttinspect.errors import UsageError
from ttinspect.kernel.argument_types import TlDtype
from ttinspect.kernel.catalog import get_variant
from ttinspect.kernel.options import OPTION_KEYS, check_option, short_value
from ttinspect.kernel.variants import Resolved, Variant


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
            raise UsageError(f"--set {key}={short_value(value)}: must fit in a signed 64-bit integer")
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

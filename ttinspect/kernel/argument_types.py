"""The kinds of kernel argument ttinspect describes without a tensor in hand: a pointer, a scalar, a host TMA
tensor descriptor, a `tl.<dtype>` constexpr. Pure data (no triton import): the shipped variants, `--signature`
and `--arg` are written in them, and specialization reads them as a launch would read real values."""

from __future__ import annotations

from dataclasses import dataclass


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
    layout: str | None = None  # a Gluon descriptor's shared-memory layout, as Gluon writes it (repr)


@dataclass(frozen=True)
class TlDtype:
    """A constexpr whose value is a `tl.<name>` dtype (e.g. seed 004's TYPE_C). Resolved at compile time."""

    name: str  # attribute of triton.language: "float16", "float32", ...


def entry_text(value: Pointer | Scalar) -> str:
    """How `--arg` and `--signature` write an argument known by its type: `*fp16:16`, `i32:16`, `i32:1`, `i32`."""
    if isinstance(value, Pointer):
        return f"*{value.dtype}" + (":16" if value.aligned else "")
    return value.dtype + (":16" if value.divisible_by_16 else ":1" if value.equal_to_1 else "")

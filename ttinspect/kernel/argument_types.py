"""The kinds of kernel argument ttinspect describes without a tensor in hand: a pointer, a scalar, a host TMA
tensor descriptor, a `tl.<dtype>` constexpr. Pure data (no triton import): the shipped variants, `--signature`
and `--arg` are written in them, and specialization reads them as a launch would read real values."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pointer:
    """A tensor argument as a launch would pass it: element type, whether it is 16-byte aligned and, when
    given (`*fp32[16384,4096]`), the shape of a contiguous tensor — what a heuristic or pruner reading
    `numel()`, `.shape`, `size()` or `stride()` sees. A launch specializes on none of the shape."""

    dtype: str  # Triton's short name: "fp16", "fp32", "bf16", "i32", ...
    aligned: bool = True
    shape: tuple[int, ...] | None = None  # None: not given (asking for it is refused, naming the syntax)

    def __repr__(self) -> str:
        # the repr is part of cache keys (engine/builds.py): a pointer without a shape keeps the one it had
        shape = f", shape={self.shape!r}" if self.shape is not None else ""
        return f"Pointer(dtype={self.dtype!r}, aligned={self.aligned!r}{shape})"


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
        return f"*{value.dtype}" + (shape_text(value.shape) if value.shape is not None else "") + (
            ":16" if value.aligned else "")
    return value.dtype + (":16" if value.divisible_by_16 else ":1" if value.equal_to_1 else "")


def shape_text(shape: tuple[int, ...]) -> str:
    """`[16384,4096]`: how `--arg` writes a pointer's shape (no spaces: one shell word)."""
    return "[" + ",".join(str(n) for n in shape) + "]"

"""Argument checks and output allocation shared by the launchers.

Imports neither triton nor torch: tensors are handled through their own methods (`new_empty`), so the
launchers work unchanged on CUDA tensors and, under TRITON_INTERPRET=1, on CPU tensors.
"""

from __future__ import annotations


def matmul_shape(a, b) -> tuple[int, int, int]:
    """(M, N, K) of C = A @ B, after checking that A is (M, K) and B is (K, N) on one device."""
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"matmul needs 2-D operands, got A{tuple(a.shape)} and B{tuple(b.shape)}")
    (M, K), (K_b, N) = a.shape, b.shape
    if K != K_b:
        raise ValueError(f"incompatible shapes: A{tuple(a.shape)} @ B{tuple(b.shape)} (K {K} != {K_b})")
    if a.device != b.device:
        raise ValueError(f"A is on {a.device} but B is on {b.device}")
    return M, N, K


def output(out, shape: tuple[int, ...], like, dtype=None):
    """`out` if the caller passed one (checked), else a fresh uninitialised tensor on `like`'s device.

    Passing `out` lets a caller poison the buffer first (NaN-fill it) and so prove that the kernel
    wrote every element.
    """
    dtype = like.dtype if dtype is None else dtype
    if out is None:
        return like.new_empty(shape, dtype=dtype)
    if tuple(out.shape) != tuple(shape) or out.dtype != dtype or out.device != like.device:
        raise ValueError(f"out must be a {dtype} tensor of shape {tuple(shape)} on {like.device}, "
                         f"got {out.dtype} {tuple(out.shape)} on {out.device}")
    return out

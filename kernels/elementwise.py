"""Seed 001's two non-matmul kernels: vector add and the fused, row-persistent softmax.

Both kernels are the seed's as written (they have no bugs); the launchers are the seed's `add` and, for
softmax (whose launcher the seed does not show), the one from Triton's fused-softmax tutorial that the
kernel comes from, simplified: one program per row up to a few per SM.
"""

from __future__ import annotations

import triton
import triton.language as tl

from ._launch import output


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elems, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elems
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


@triton.jit
def softmax_kernel(i_ptr, o_ptr, i_stride, o_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    # Persistent: each program starts at its own row and strides by the number of programs. The
    # constexpr `num_stages` (same name as the compile option) pipelines this row loop.
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = i_ptr + row_idx * i_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        i_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        # A whole row per step: correct only when BLOCK_SIZE >= n_cols (the launcher enforces it).
        x = tl.load(i_ptrs, mask=mask, other=-float('inf'))
        x_minus_max = x - tl.max(x, axis=0)
        exp_x = tl.exp(x_minus_max)
        sum_exp_x = tl.sum(exp_x, axis=0)
        softmax = exp_x / sum_exp_x
        o_ptrs = o_ptr + row_idx * o_stride + col_offsets
        tl.store(o_ptrs, softmax, mask=mask)


def launch_add(x, y, *, out=None, BLOCK_SIZE=1024, num_warps=4, num_stages=3, **options):
    """x + y, elementwise over the flattened tensors; 1-D grid of cdiv(n, BLOCK_SIZE) programs."""
    if x.shape != y.shape or x.device != y.device:
        raise ValueError(f"add needs two tensors of one shape on one device, got {tuple(x.shape)} on "
                         f"{x.device} and {tuple(y.shape)} on {y.device}")
    if not (x.is_contiguous() and y.is_contiguous()):
        raise ValueError("add indexes memory as one flat array: pass contiguous tensors")
    result = output(out, tuple(x.shape), x)
    n_elems = x.numel()
    grid = (triton.cdiv(n_elems, BLOCK_SIZE),)
    add_kernel[grid](x, y, result, n_elems, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps,
                     num_stages=num_stages, **options)
    return result


def launch_softmax(x, *, out=None, BLOCK_SIZE=None, num_warps=8, num_stages=4, programs=None, **options):
    """Row-wise softmax of a 2-D tensor. BLOCK_SIZE defaults to next_power_of_2(n_cols) and must be at
    least n_cols (one program step handles a whole row). `programs` (default: n_rows, capped at 4 per
    SM on a GPU) is the grid size; each program loops over its rows."""
    if x.dim() != 2:
        raise ValueError(f"softmax needs a 2-D tensor, got shape {tuple(x.shape)}")
    n_rows, n_cols = x.shape
    if BLOCK_SIZE is None:
        BLOCK_SIZE = triton.next_power_of_2(n_cols)
    if BLOCK_SIZE < n_cols:
        raise ValueError(f"softmax's BLOCK_SIZE={BLOCK_SIZE} is smaller than n_cols={n_cols}: one step "
                         f"must hold a whole row; use BLOCK_SIZE={triton.next_power_of_2(n_cols)}")
    if x.stride(1) != 1:
        raise ValueError("softmax reads each row as contiguous: x.stride(1) must be 1")
    result = output(out, (n_rows, n_cols), x)
    if result.stride(1) != 1:
        raise ValueError("softmax writes each row as contiguous: out.stride(1) must be 1")
    if programs is None:
        programs = n_rows
        if x.device.type == "cuda":
            import torch  # only here: importing this module must not import torch

            programs = min(n_rows, 4 * torch.cuda.get_device_properties(x.device).multi_processor_count)
    grid = (max(1, programs),)
    softmax_kernel[grid](x, result, x.stride(0), result.stride(0), n_rows, n_cols,
                         BLOCK_SIZE=BLOCK_SIZE, num_stages=num_stages, num_warps=num_warps, **options)
    return result

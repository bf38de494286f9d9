"""A helper module of helper_errors.py: its jit function fails on bf16 (tl.exp)."""
import triton
import triton.language as tl


@triton.jit
def exp_of(x):
    return tl.exp(x)  # line 8: the error

"""A user's file as a Triton author writes it: an autotuned matmul with a heuristic, a plain kernel,
a helper that is not a kernel, and the examples ttinspect can take by name. Not registered anywhere."""

import triton
import triton.language as tl

CONFIGS = [
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=3),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=8, num_stages=3),
]


@triton.autotune(configs=CONFIGS, key=["M", "N", "K"])
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        if EVEN_K:
            acc += tl.dot(tl.load(a), tl.load(b))
        else:
            mask = rk + k < K
            acc += tl.dot(tl.load(a, mask=mask[None, :], other=0.0), tl.load(b, mask=mask[:, None], other=0.0))
        a += BLOCK_K * stride_ak
        b += BLOCK_K * stride_bk
    c = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c, acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr = 1024):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def grid(meta):  # a helper: not a kernel
    return (triton.cdiv(4096, meta["BLOCK_M"]), triton.cdiv(4096, meta["BLOCK_N"]))


def square_args(size):
    """The arguments of a contiguous fp16 size x size x size matmul, as a launch passes them."""
    return {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": size, "N": size, "K": size,
            "stride_am": size, "stride_ak": 1, "stride_bk": size, "stride_bn": 1, "stride_cm": size, "stride_cn": 1}


TTINSPECT_EXAMPLES = {
    "small": {"kernel": matmul, "args": square_args(1024), "autotune_config": 1,
              "description": "1024³, the first autotune config"},
    "big": {"kernel": "matmul", "args": square_args(4096), "autotune_config": 3,
            "description": "4096³, the largest tile"},
    "add": {"kernel": add_kernel, "signature": "*fp32:16, *fp32:16, *fp32:16, i32:16"},
}

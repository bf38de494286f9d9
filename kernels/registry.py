"""Every kernel variant ttinspect knows, as pure data.

This module is imported on the CLI's fast path (`ttinspect list`, cached artifacts): it must import
neither triton nor torch. Kernels and launchers are named by "module:function" strings and loaded only
when something is compiled or run. docs/kernels.md tells where each variant comes from and what was
changed from its seed.

`make_args(problem, config)` returns every non-constexpr kernel parameter, in the kernel's order, as a
launch with contiguous row-major tensors would pass it (`Pointer(dtype)` for tensors, ints for sizes
and strides). The engine applies Triton's specialization rules to these values itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ttinspect.kernel.variants import Variant
from ttinspect.kernel.argument_types import Pointer, TensorDesc, TlDtype

PKG = "ttinspect_kernels"

# Matmul problems: square, fp16 in / fp32 accumulate, sizes divisible by 16 (as the seeds benchmark).
MATMUL_PROBLEM = {"M": 4096, "N": 4096, "K": 4096, "dtype": "fp16"}


def matmul_args(problem: Mapping[str, Any], config: Mapping[str, Any]) -> dict:
    """C[M, N] = A[M, K] @ B[K, N], all row-major and contiguous; C in the inputs' dtype."""
    return _matmul_args(problem, out_dtype=problem["dtype"])


def matmul_fp32_out_args(problem: Mapping[str, Any], config: Mapping[str, Any]) -> dict:
    """As `matmul_args`, but C is fp32 whatever the inputs (seed 002's kernel)."""
    return _matmul_args(problem, out_dtype="fp32")


def _matmul_args(problem: Mapping[str, Any], out_dtype: str) -> dict:
    M, N, K, dtype = problem["M"], problem["N"], problem["K"], problem["dtype"]
    return {
        "a_ptr": Pointer(dtype), "b_ptr": Pointer(dtype), "c_ptr": Pointer(out_dtype),
        "M": M, "N": N, "K": K,
        "stride_am": K, "stride_ak": 1,
        "stride_bk": N, "stride_bn": 1,
        "stride_cm": N, "stride_cn": 1,
    }


def tma_matmul_args(problem: Mapping[str, Any], config: Mapping[str, Any]) -> dict:
    """Host tensor descriptors over row-major A, B, C; each moves one tile of the config's blocks."""
    dtype, bm, bn, bk = problem["dtype"], config["BLOCK_SIZE_M"], config["BLOCK_SIZE_N"], config["BLOCK_SIZE_K"]
    return {"a_desc": TensorDesc(dtype, (bm, bk)), "b_desc": TensorDesc(dtype, (bk, bn)),
            "c_desc": TensorDesc(dtype, (bm, bn)), "M": problem["M"], "N": problem["N"], "K": problem["K"]}


def add_args(problem: Mapping[str, Any], config: Mapping[str, Any]) -> dict:
    dtype = problem["dtype"]
    return {"x_ptr": Pointer(dtype), "y_ptr": Pointer(dtype), "output_ptr": Pointer(dtype),
            "n_elems": problem["n_elems"]}


def softmax_args(problem: Mapping[str, Any], config: Mapping[str, Any]) -> dict:
    dtype, n_cols = problem["dtype"], problem["n_cols"]
    return {"i_ptr": Pointer(dtype), "o_ptr": Pointer(dtype), "i_stride": n_cols, "o_stride": n_cols,
            "n_rows": problem["n_rows"], "n_cols": n_cols}


# Doc 003's `triton_matmul_opt.py` autotunes over 17 configs; the doc shows three of them, which are
# the first three of Triton's matmul tutorial (get_cuda_autotune_config). The list below is that
# tutorial's 16 CUDA configs (8 for fp16, 8 it marks "good for fp8 inputs"; the doc's winner,
# 128x32x32 s4 w4 G8, is its 6th) plus, 17th, the doc's own §5.4 advice for M, N, K >= 4096
# (128x32, G8, num_stages=5; BLOCK_SIZE_K and num_warps unstated there, taken from the winner).
def _cfg(bm: int, bn: int, bk: int, stages: int, warps: int, group: int = 8) -> dict:
    return {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": group,
            "num_warps": warps, "num_stages": stages}


OPT_AUTOTUNE_CONFIGS = (
    # Triton tutorial, fp16 configs (the doc shows the first three)
    _cfg(128, 256, 64, 3, 8), _cfg(64, 256, 32, 4, 4), _cfg(128, 128, 32, 4, 4), _cfg(128, 64, 32, 4, 4),
    _cfg(64, 128, 32, 4, 4), _cfg(128, 32, 32, 4, 4), _cfg(64, 32, 32, 5, 2), _cfg(32, 64, 32, 5, 2),
    # Triton tutorial, "good config for fp8 inputs"
    _cfg(128, 256, 128, 3, 8), _cfg(256, 128, 128, 3, 8), _cfg(256, 64, 128, 4, 4),
    _cfg(64, 256, 128, 4, 4), _cfg(128, 128, 128, 4, 4), _cfg(128, 64, 64, 4, 4),
    _cfg(64, 128, 64, 4, 4), _cfg(128, 32, 64, 4, 4),
    # doc 003 §5.4, "large matrices"
    _cfg(128, 32, 32, 5, 4),
    # Added by ttinspect for Hopper (not in the doc): large tiles with 8 warps (two warpgroups) keep the
    # wgmma units fed; 128x256x64 s3 w8 (the list's first) reached 0.94x / 0.96x cuBLAS at 4096 / 8192 on
    # an H100 by hand, these are its neighbours. docs/h100.md has the measurements.
    # Chosen with benchmarks/hopper_configs.py (48 candidates, each timed beside cuBLAS).
    _cfg(128, 256, 64, 4, 8), _cfg(256, 128, 64, 3, 8), _cfg(128, 256, 64, 4, 8, group=16),
    _cfg(128, 256, 32, 4, 8, group=16), _cfg(128, 256, 64, 3, 8, group=16),
)

# Seed 001's get_autotune_config(): four tile shapes, all num_warps=4, num_stages=2.
TUTORIAL_AUTOTUNE_CONFIGS = tuple(
    {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": g, "num_warps": 4,
     "num_stages": 2}
    for bm, bn, g in ((64, 64, 4), (128, 64, 2), (64, 128, 4), (128, 128, 2))
)



def _l2_config(group_size_m: int) -> dict:
    """Seed 004's two autotune configs differ only in GROUP_SIZE_M; its launch passes the dtypes."""
    return {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": group_size_m,
            "TYPE_C": TlDtype("float16"), "TYPE_ACC": TlDtype("float32"), "num_warps": 4, "num_stages": 4}


def _ladder_config(num_stages: int, modulo: bool) -> dict:
    """naive's tile (64x64x32, 4 warps) with the L2 swizzle, and the other §7.1 steps as given."""
    return {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "MODULO": modulo,
            "num_warps": 4, "num_stages": num_stages}


# doc 003 §7.1's ladder: naive -> +GROUP_SIZE_M=8 -> +num_stages=4 -> +modulo -> opt -> autotuned
LADDER = ("naive", "ladder_g8", "ladder_g8_s4", "ladder_g8_s4_mod", "opt")

SOFTMAX_PROBLEM = {"n_rows": 4096, "n_cols": 1024, "dtype": "fp32"}


ATTENTION_PROBLEM = {"Z": 32, "N_CTX": 4096, "HEAD_DIM": 64, "dtype": "fp16"}


def attention_args(problem: Mapping[str, Any], config: Mapping[str, Any]) -> dict:
    """Q, K, V, Out as contiguous (Z, N_CTX, HEAD_DIM) tensors: every row stride is HEAD_DIM."""
    dtype, d = problem["dtype"], problem["HEAD_DIM"]
    return {"Q": Pointer(dtype), "K": Pointer(dtype), "V": Pointer(dtype), "Out": Pointer(dtype),
            "sm_scale": d ** -0.5, "N_CTX": problem["N_CTX"],
            "stride_qm": d, "stride_kn": d, "stride_vn": d, "stride_om": d}


def _next_power_of_2(n: int) -> int:
    return 1 << (n - 1).bit_length()


# Each launcher's grid, over the launch's values by name and the device's SM count (Variant.grid): the same
# expressions as the launchers in this package, so a prediction launches what a run would.
def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _tiles_grid(block_m: str, block_n: str):
    """One program per output tile, in one dimension (the grouped and row-major matmuls)."""
    return lambda v, sms: (_cdiv(v["M"], v[block_m]) * _cdiv(v["N"], v[block_n]),)


def _naive_grid(v: Mapping[str, Any], sms: int) -> tuple[int, ...]:
    return _cdiv(v["N"], v["BLOCK_SIZE_N"]), _cdiv(v["M"], v["BLOCK_SIZE_M"])


def _square_grid(v: Mapping[str, Any], sms: int) -> tuple[int, ...]:
    return _cdiv(v["M"], v["BLOCK_SIZE"]), _cdiv(v["N"], v["BLOCK_SIZE"])


def _add_grid(v: Mapping[str, Any], sms: int) -> tuple[int, ...]:
    return (_cdiv(v["n_elems"], v["BLOCK_SIZE"]),)


def _softmax_grid(v: Mapping[str, Any], sms: int) -> tuple[int, ...]:
    return (max(1, min(v["n_rows"], 4 * sms)),)  # persistent over rows: 4 programs per SM (launch_softmax)


def _attention_grid(v: Mapping[str, Any], sms: int) -> tuple[int, ...]:
    return v["N_CTX"] // v["BLOCK_M"], v["Z"]


def _persistent_tiles_grid(v: Mapping[str, Any], sms: int) -> tuple[int, ...]:
    return (min(v["NUM_SMS"], _cdiv(v["M"], v["BLOCK_SIZE_M"]) * _cdiv(v["N"], v["BLOCK_SIZE_N"])),)


VARIANTS: tuple[Variant, ...] = (
    Variant(
        name="naive", aliases=("matmul_naive",), seed="003",
        grid=_naive_grid,
        kernel=f"{PKG}.doc003:matmul_naive_kernel", launcher=f"{PKG}.doc003:launch_naive",
        description="doc 003's triton_matmul.py: 64x64x32 tiles, 2-D grid, full 2-D masks, 3 stages",
        config={"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "num_warps": 4, "num_stages": 3},
        problem=MATMUL_PROBLEM, make_args=matmul_args,
    ),
    Variant(
        name="opt", aliases=("matmul_opt",), seed="003",
        grid=_tiles_grid("BLOCK_SIZE_M", "BLOCK_SIZE_N"),
        kernel=f"{PKG}.doc003:matmul_opt_kernel", launcher=f"{PKG}.doc003:launch_opt",
        description="doc 003's triton_matmul_opt.py: 128x32x32, GROUP_SIZE_M=8 swizzle, modulo "
                    "addressing, K-only mask, 4 stages",
        config=OPT_AUTOTUNE_CONFIGS[5],  # the doc's autotune winner: 128x32x32, s4, w4, G8
        problem=MATMUL_PROBLEM, make_args=matmul_args, autotune_configs=OPT_AUTOTUNE_CONFIGS,
        notes="config is the doc's autotune winner; autotune_configs: Triton tutorial's 16 + doc §5.4",
    ),
    Variant(
        name="square", seed="000",
        grid=_square_grid,
        kernel=f"{PKG}.square:matmul_square_kernel", launcher=f"{PKG}.square:launch_square",
        description="seed 000's minimal matmul, one square BLOCK_SIZE=32, fixed (K arange, 2-D grid)",
        config={"BLOCK_SIZE": 32, "num_warps": 4, "num_stages": 3},
        problem=MATMUL_PROBLEM, make_args=matmul_args,
        notes="the seed ran fp32 128x64 @ 64x256; the default problem is the common 4096^3 fp16",
    ),
    Variant(
        name="tutorial", seed="001",
        grid=_tiles_grid("BLOCK_SIZE_M", "BLOCK_SIZE_N"),
        kernel=f"{PKG}.tutorial:matmul_grouped_kernel", launcher=f"{PKG}.tutorial:launch_tutorial",
        description="seed 001's grouped matmul (Triton tutorial), swizzle and K mask fixed, 2 stages",
        config=TUTORIAL_AUTOTUNE_CONFIGS[0], problem=MATMUL_PROBLEM, make_args=matmul_args,
        autotune_configs=TUTORIAL_AUTOTUNE_CONFIGS,
    ),
    Variant(
        name="add", seed="001",
        grid=_add_grid,
        kernel=f"{PKG}.elementwise:add_kernel", launcher=f"{PKG}.elementwise:launch_add",
        description="seed 001's vector add, BLOCK_SIZE=1024",
        config={"BLOCK_SIZE": 1024, "num_warps": 4, "num_stages": 3},
        problem={"n_elems": 1 << 24, "dtype": "fp32"}, make_args=add_args,
        notes="fp32 as in the seed's benchmark",
    ),
    Variant(
        name="softmax", seed="001",
        grid=_softmax_grid,
        kernel=f"{PKG}.elementwise:softmax_kernel", launcher=f"{PKG}.elementwise:launch_softmax",
        description="seed 001's fused row softmax, persistent over rows, BLOCK_SIZE=next_pow2(n_cols)",
        # num_stages is both a compile option and the kernel's constexpr of that name.
        config={"BLOCK_SIZE": _next_power_of_2(SOFTMAX_PROBLEM["n_cols"]), "num_warps": 8, "num_stages": 4},
        problem=SOFTMAX_PROBLEM, make_args=softmax_args,
        notes="BLOCK_SIZE must be >= n_cols: with --set n_cols=X also set BLOCK_SIZE to a power of 2 >= X",
    ),
    Variant(
        name="attn", aliases=("attn_fwd",), seed="—",
        grid=_attention_grid,
        kernel=f"{PKG}.attention:attn_fwd_kernel", launcher=f"{PKG}.attention:launch_attn",
        description="FlashAttention forward (tutorial 06's core): two dots per K/V step, online softmax",
        config={"HEAD_DIM": ATTENTION_PROBLEM["HEAD_DIM"], "BLOCK_M": 128, "BLOCK_N": 64, "CAUSAL": False,
                "num_warps": 4, "num_stages": 3},
        problem=ATTENTION_PROBLEM, make_args=attention_args,
        notes="not from the seeds: two dots and two loads per step; --set CAUSAL=true gives two loops (left of "
              "the diagonal, then on it); HEAD_DIM must match the problem's",
    ),
    Variant(
        name="tileon", seed="002",
        grid=_tiles_grid("BLOCK_M", "BLOCK_N"),
        kernel=f"{PKG}.tileon:matmul_tileon_kernel", launcher=f"{PKG}.tileon:launch_tileon",
        description="seed 002's Tileon GEMM ported to Triton: 128x256x64, column-major order, fp32 C",
        config={"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "num_warps": 4, "num_stages": 3},
        problem=MATMUL_PROBLEM, make_args=matmul_fp32_out_args,
        notes="num_warps/num_stages are Triton's launch defaults: the seed sets neither",
    ),
    Variant(
        name="ladder_g8", seed="003",
        grid=_tiles_grid("BLOCK_SIZE_M", "BLOCK_SIZE_N"),
        kernel=f"{PKG}.ladder:matmul_ladder_kernel", launcher=f"{PKG}.ladder:launch_ladder",
        description="doc 003 §7.1 step 1: naive's 64x64x32 tile + the GROUP_SIZE_M=8 swizzle",
        config=_ladder_config(3, False), problem=MATMUL_PROBLEM, make_args=matmul_args,
    ),
    Variant(
        name="ladder_g8_s4", seed="003",
        grid=_tiles_grid("BLOCK_SIZE_M", "BLOCK_SIZE_N"),
        kernel=f"{PKG}.ladder:matmul_ladder_kernel", launcher=f"{PKG}.ladder:launch_ladder",
        description="doc 003 §7.1 step 2: + num_stages=4",
        config=_ladder_config(4, False), problem=MATMUL_PROBLEM, make_args=matmul_args,
    ),
    Variant(
        name="ladder_g8_s4_mod", seed="003",
        grid=_tiles_grid("BLOCK_SIZE_M", "BLOCK_SIZE_N"),
        kernel=f"{PKG}.ladder:matmul_ladder_kernel", launcher=f"{PKG}.ladder:launch_ladder",
        description="doc 003 §7.1 step 3: + modulo addressing with K-only masks",
        config=_ladder_config(4, True), problem=MATMUL_PROBLEM, make_args=matmul_args,
    ),
    Variant(
        name="opt_tma", seed="—",
        grid=_persistent_tiles_grid,
        kernel=f"{PKG}.hopper:matmul_tma_persistent_kernel", launcher=f"{PKG}.hopper:launch_tma",
        description="not from the seeds: opt for Hopper — TMA descriptors, persistent grid, 128x256x64, "
                    "8 warps, grouped order",
        config={"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
                "NUM_SMS": 132, "num_warps": 8, "num_stages": 3},
        problem=MATMUL_PROBLEM, make_args=tma_matmul_args,
        autotune_configs=tuple(
            {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": g, "NUM_SMS": 132,
             "num_warps": 8, "num_stages": s}
            for bm, bn in ((128, 256), (256, 128)) for g in (8, 16) for s in (3, 4)),
        notes="NUM_SMS=132 (an H100) offline; the launcher uses the GPU's SM count",
    ),
    Variant(
        name="l2_g0", seed="004",
        grid=_tiles_grid("BLOCK_SIZE_M", "BLOCK_SIZE_N"),
        kernel=f"{PKG}.l2:kernel_matmul", launcher=f"{PKG}.l2:launch_l2",
        description="seed 004's kernel_matmul, GROUP_SIZE_M=0 (row-major order), no masks, 128x128x32",
        config=_l2_config(0), problem=MATMUL_PROBLEM, make_args=matmul_args,
        notes="no masks: M, N, K must be multiples of the blocks (the launcher refuses other shapes)",
    ),
    Variant(
        name="l2_g8", seed="004",
        grid=_tiles_grid("BLOCK_SIZE_M", "BLOCK_SIZE_N"),
        kernel=f"{PKG}.l2:kernel_matmul", launcher=f"{PKG}.l2:launch_l2",
        description="seed 004's kernel_matmul, GROUP_SIZE_M=8 (grouped order), no masks, 128x128x32",
        config=_l2_config(8), problem=MATMUL_PROBLEM, make_args=matmul_args,
        notes="no masks: M, N, K must be multiples of the blocks (the launcher refuses other shapes)",
    ),
)

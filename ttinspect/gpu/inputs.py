"""Random CUDA inputs for a variant's problem, as its launcher takes them. Imports torch."""

from __future__ import annotations

from ttinspect.kernel.variants import Resolved

_TORCH_DTYPES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32"}


def example_inputs(resolved: Resolved, *, seed: int = 0) -> tuple:
    import torch

    problem = resolved.problem
    dtype = getattr(torch, _TORCH_DTYPES.get(problem.get("dtype", "fp16"), "float16"))
    gen = torch.Generator(device="cuda").manual_seed(seed)

    def randn(*shape):
        return torch.randn(*shape, device="cuda", dtype=dtype, generator=gen)

    if {"M", "N", "K"} <= set(problem):
        return randn(problem["M"], problem["K"]), randn(problem["K"], problem["N"])
    if "n_elems" in problem:
        return randn(problem["n_elems"]), randn(problem["n_elems"])
    if {"Z", "N_CTX", "HEAD_DIM"} <= set(problem):  # attention: Q, K, V
        return tuple(randn(problem["Z"], problem["N_CTX"], problem["HEAD_DIM"]) for _ in range(3))
    if {"n_rows", "n_cols"} <= set(problem):
        return (randn(problem["n_rows"], problem["n_cols"]),)
    raise ValueError(f"no example inputs for {resolved.variant.name}'s problem {dict(problem)}")

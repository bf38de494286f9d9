"""A small real program for `ttinspect capture` on a GPU (scripts/device_issue29.sh): an autotuned matmul written
like Triton's tutorial 03 (its configs chosen by the driver at import, timed by the autotuner), two public kernel
libraries' ops (Liger-Kernel's RMSNorm forward and backward, SwiGLU; flag-gems' var_mean and softmax), and
a torch.compile'd function (Inductor generates and launches its own Triton kernels). Every launch a few
times, as a training step would.

    ttinspect capture -o run.ttcap -- python scripts/capture_demo.py
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import torch
import triton

ROOT = Path(__file__).resolve().parent.parent


def tutorial_matmul() -> None:
    path = ROOT / "tests" / "data" / "device_paths" / "tutorial_matmul.py"
    spec = importlib.util.spec_from_file_location("tutorial_matmul", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["tutorial_matmul"] = module
    spec.loader.exec_module(module)
    for size in (512, 1024):
        a = torch.randn(size, size, device="cuda", dtype=torch.float16)
        b = torch.randn(size, size, device="cuda", dtype=torch.float16)
        c = torch.empty(size, size, device="cuda", dtype=torch.float16)
        grid = lambda meta: (triton.cdiv(size, meta["BLOCK_SIZE_M"]) * triton.cdiv(size, meta["BLOCK_SIZE_N"]),)  # noqa: E731
        for _ in range(3):
            module.matmul_kernel[grid](a, b, c, size, size, size, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                       c.stride(0), c.stride(1))


def liger_ops() -> None:
    from liger_kernel.transformers.rms_norm import LigerRMSNorm
    from liger_kernel.transformers.swiglu import LigerSiLUMulFunction

    norm = LigerRMSNorm(2048).cuda().to(torch.bfloat16)
    x = torch.randn(8, 512, 2048, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    for _ in range(3):
        norm(x).sum().backward()
    gate = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    up = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        LigerSiLUMulFunction.apply(gate, up)


def flag_gems_ops() -> None:
    """flag-gems' ATen operators called directly (its var_mean is autotuned over 24 configs on the GPU)."""
    import os

    os.environ.setdefault("GEMS_VENDOR", "nvidia")
    from flag_gems.ops import softmax, var_mean

    x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        var_mean(x, [-1])
        softmax(x, -1)


def compiled() -> None:
    @torch.compile
    def step(x, w):
        return torch.relu(x @ w + 1.0).sum(dim=-1)

    x = torch.randn(256, 512, device="cuda")
    w = torch.randn(512, 512, device="cuda")
    for _ in range(3):
        step(x, w)


if __name__ == "__main__":
    tutorial_matmul()
    liger_ops()
    flag_gems_ops()
    compiled()
    torch.cuda.synchronize()
    print("capture_demo: done")

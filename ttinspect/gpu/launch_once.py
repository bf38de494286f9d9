"""python -m ttinspect.gpu.launch_once VARIANT SIZE — one launch, for a profiler to catch.

VARIANT may carry overrides (`opt:num_stages=3`), or be `cublas` for torch.matmul. Inputs are
created (and the kernel compiled) before the launch; only the variant's kernel name should be
selected by the profiler (ncu --kernel-name).
"""

from __future__ import annotations

import sys

from ttinspect.refs.reference import parse_ref


def main(argv: list[str]) -> None:
    import torch

    ref_text, size = argv[0], int(argv[1])
    gen = torch.Generator(device="cuda").manual_seed(size)
    a = torch.randn(size, size, device="cuda", dtype=torch.float16, generator=gen)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16, generator=gen)
    torch.cuda.synchronize()
    if ref_text == "cublas":
        torch.matmul(a, b)
    else:
        ref = parse_ref(ref_text, [f"M={size}", f"N={size}", f"K={size}"])
        ref.resolved.variant.load_launcher()(a, b, **ref.resolved.config)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main(sys.argv[1:])

"""python -m ttinspect.gpu.launch_once VARIANT SIZE — one launch, for a profiler to catch.

VARIANT may carry overrides (`opt:num_stages=3`), be `cublas` for torch.matmul, or a captured kernel
(`step.ttcap:k:num_stages=4`: its captured launch replayed, SIZE unused). Inputs are
created (and the kernel compiled) before the launch; only the variant's kernel name should be
selected by the profiler (ncu --kernel-name).
"""

from __future__ import annotations

import sys

from ttinspect.refs.captured import is_capture_ref
from ttinspect.refs.reference import parse_ref


def main(argv: list[str]) -> None:
    import torch

    ref_text, size = argv[0], int(argv[1])
    if is_capture_ref(ref_text):
        from ttinspect.gpu.replay import replay_once  # the capture's replay: only for a captured kernel

        replay_once(ref_text, argv[2] if len(argv) > 2 else None)
        return
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

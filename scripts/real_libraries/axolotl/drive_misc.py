"""axolotl's kernels its tests do not reach: GEGLU forward and backward, DoRA's fused weight norm, and one fused
SinkGD optimizer step (a tall 4096x1024 and a wide 256x8192 weight), at training sizes."""
import torch

from axolotl.kernels.dora import triton_dora_scale
from axolotl.kernels.geglu import geglu_backward, geglu_forward
from axolotl.utils.optimizers.sinkgd_triton import fused_sinkgd_step

gate = torch.randn(4, 2048, 4096, device="cuda", dtype=torch.bfloat16)
up = torch.randn(4, 2048, 4096, device="cuda", dtype=torch.bfloat16)
out = geglu_forward(gate, up)
geglu_backward(torch.randn_like(out), gate, up)

W = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
A = torch.randn(16, 4096, device="cuda", dtype=torch.bfloat16)
B = torch.randn(4096, 16, device="cuda", dtype=torch.bfloat16)
triton_dora_scale(W, None, A, B, 2.0, torch.ones(4096, device="cuda", dtype=torch.bfloat16), torch.bfloat16)

for shape in ((4096, 1024), (256, 8192)):
    p = torch.randn(*shape, device="cuda")
    fused_sinkgd_step(p, torch.randn_like(p), 1e-3, 0.01, 5, 1e-8)

"""fastvideo_kernel's TurboDiffusion LayerNorm without affine parameters (FastLayerNorm, elementwise_affine=False,
as a Wan block's norm1/norm2), on a 720p Wan token batch: 1 x 32,760 tokens x 5120."""
import torch
from fastvideo_kernel import FastLayerNorm

norm = FastLayerNorm(5120, eps=1e-6, elementwise_affine=False).cuda()
x = torch.randn(1, 32760, 5120, device="cuda", dtype=torch.bfloat16)
print(norm(x).shape)

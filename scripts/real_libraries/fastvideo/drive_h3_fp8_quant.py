"""fastvideo's MiniMax-H3 serialized-FP8 linear: the per-token-group FP8 activation quantization its apply() runs
before the blockwise GEMM (models/encoders/minimax_h3_checkpoint_fp8.py), with row- and column-major scales,
groups of 128 over 4096 tokens of a 5120-wide activation."""
import torch
from fastvideo.models.encoders.minimax_h3_checkpoint_fp8 import _sglang_per_token_group_quant_fp8

x = torch.randn(4096, 5120, device="cuda", dtype=torch.bfloat16)
for column_major in (False, True):
    q, scales = _sglang_per_token_group_quant_fp8(x, 128, column_major_scales=column_major)
print(q.dtype, scales.shape)

import torch
from sglang.kernels.ops.attention.merge_state import merge_state_triton
# merging a cascade's prefix and suffix attention outputs: 8192 tokens, 32 heads of 128
o1 = torch.randn(8192, 32, 128, device="cuda", dtype=torch.bfloat16)
lse1 = torch.randn(8192, 32, device="cuda", dtype=torch.float32)
merge_state_triton(o1, lse1, torch.randn_like(o1), torch.randn_like(lse1))

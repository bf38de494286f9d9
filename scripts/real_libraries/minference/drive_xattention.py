import torch
from minference.ops.xattention_fa import flat_group_gemm_fuse_reshape, softmax_fuse_block_sum
q, k = (torch.randn(1, 32, 8192, 128, device="cuda", dtype=torch.bfloat16) for _ in range(2))
scores = flat_group_gemm_fuse_reshape(q, k, 8, 0, 8192)
softmax_fuse_block_sum(scores, 16, 128, 0, 8192 // 8, 8192 // 8, 1.0)

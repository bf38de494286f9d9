import torch
from flashnn.triton_kernels.fused_moe_fp16 import fused_moe_fp16_forward
A = torch.randn(512, 4096, device="cuda", dtype=torch.float16)
B = torch.randn(8, 14336, 4096, device="cuda", dtype=torch.float16)
C = torch.empty(512, 2, 14336, device="cuda", dtype=torch.float16)
topk_w, topk_ids = torch.rand(512, 2, device="cuda"), torch.randint(0, 8, (512, 2), device="cuda", dtype=torch.int32)
sorted_ids = torch.arange(1536, device="cuda", dtype=torch.int32)
experts = torch.arange(8, device="cuda", dtype=torch.int32).repeat_interleave(24)
config = {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}
padded = torch.tensor([1536], device="cuda")
fused_moe_fp16_forward(A, B, C, topk_w, topk_ids, sorted_ids, experts, padded, False, 2, config)

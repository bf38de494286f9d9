import torch
from conch.ops.vllm.copy_blocks import copy_blocks
caches = [torch.zeros(2048, 16 * 8 * 128, device="cuda", dtype=torch.bfloat16) for _ in range(4)]
copy_blocks(caches[:2], caches[2:], torch.randint(0, 2048, (64, 2), device="cuda"))

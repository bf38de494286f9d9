import torch
from deepspeed.runtime.chunked_cross_entropy import chunked_cross_entropy
logits = torch.randn(8 * 2048, 128256, device="cuda", dtype=torch.bfloat16, requires_grad=True)
chunked_cross_entropy(logits, torch.randint(0, 128256, (8 * 2048,), device="cuda")).backward()

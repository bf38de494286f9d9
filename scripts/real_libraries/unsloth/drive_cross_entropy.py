import torch
from unsloth.kernels import fast_cross_entropy_loss
logits = torch.randn(2, 4096, 128256, device="cuda", dtype=torch.bfloat16, requires_grad=True)
labels = torch.randint(0, 128256, (2, 4096), device="cuda")
fast_cross_entropy_loss(logits, labels).backward()
fast_cross_entropy_loss(logits, labels, logit_softcapping=30.0)

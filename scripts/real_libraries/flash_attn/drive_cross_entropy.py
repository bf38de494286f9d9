import torch
from flash_attn.losses.cross_entropy import CrossEntropyLoss
logits = torch.randn(8192, 128256, device="cuda", dtype=torch.bfloat16, requires_grad=True)
labels = torch.randint(0, 128256, (8192,), device="cuda")
CrossEntropyLoss()(logits, labels).backward()

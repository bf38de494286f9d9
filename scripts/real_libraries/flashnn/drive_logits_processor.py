import torch
from flashnn.triton_kernels.logits_processor import triton_logits_processor_forward
scores = torch.randn(64, 32000, device="cuda", dtype=torch.float32)
ids = torch.randint(0, 32000, (64, 1024), device="cuda")
lens = torch.full((64,), 1024, device="cuda", dtype=torch.int32)
triton_logits_processor_forward(scores, torch.full((64,), 1.2, device="cuda"), ids, lens, 1024, "REPETITION")

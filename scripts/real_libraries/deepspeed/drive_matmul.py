import torch
from deepspeed.ops.transformer.inference.triton import fp16_matmul, matmul_4d
fp16_matmul.skip_autotune()  # as DeepSpeed's own tests do: its first config, no timing
a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
fp16_matmul.forward(a, torch.randn(4096, 11008, device="cuda", dtype=torch.float16))
matmul_4d(torch.randn(8, 32, 2048, 128, device="cuda", dtype=torch.float16),
          torch.randn(8, 32, 128, 2048, device="cuda", dtype=torch.float16))

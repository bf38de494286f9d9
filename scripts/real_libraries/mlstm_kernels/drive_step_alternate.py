import torch
from mlstm_kernels.torch.recurrent.triton_step_alternate import mlstm_recurrent_step__triton_alternate
# One decoding step of xLSTM-7B (batch 16) with the two-kernel step.
q, k = (torch.randn(16, 8, 256, device="cuda", dtype=torch.bfloat16) for _ in range(2))
v = torch.randn(16, 8, 512, device="cuda", dtype=torch.bfloat16)
i, f, m = (torch.randn(16, 8, 1, device="cuda", dtype=torch.float32) for _ in range(3))
c, n = torch.zeros(16, 8, 256, 512, device="cuda"), torch.zeros(16, 8, 256, device="cuda")
mlstm_recurrent_step__triton_alternate(q, k, v, i, f, c, n, m)

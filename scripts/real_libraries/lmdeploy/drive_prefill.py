import torch
from lmdeploy.pytorch.kernels.cuda import flash_attn_varlen_func
batch, seq = 4, 2048
q = torch.randn(batch * seq, 32, 128, device="cuda", dtype=torch.bfloat16)
k = torch.randn(batch * seq, 8, 128, device="cuda", dtype=torch.bfloat16)
cu = torch.arange(0, (batch + 1) * seq, seq, device="cuda", dtype=torch.int32)
flash_attn_varlen_func(q, k, k, cu, cu, max_seqlen_q=seq, max_seqlen_k=seq, causal=True)

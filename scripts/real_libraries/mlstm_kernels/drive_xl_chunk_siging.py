import torch
from mlstm_kernels.torch import get_mlstm_kernel
# xLSTM-7B's mLSTM layer with a sigmoid input gate, in training: 8 heads, qk dim 256, v dim 512, 2 x 4096 tokens.
mlstm = get_mlstm_kernel("chunkwise--triton_xl_chunk_siging")
q, k = (torch.randn(2, 8, 4096, 256, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(2))
v = torch.randn(2, 8, 4096, 512, device="cuda", dtype=torch.bfloat16, requires_grad=True)
i, f = (torch.randn(2, 8, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(2))
mlstm(q, k, v, i, f, chunk_size=128, autocast_kernel_dtype=torch.bfloat16).sum().backward()

import torch
from deepspeed.ops.triton_ops import swiglu
from deepspeed.ops.triton_ops.swiglu_triton import swiglu_packed
gate, up = (torch.randn(8, 2048, 11008, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(2))
swiglu(gate, up).sum().backward()
swiglu_packed(torch.randn(8, 2048, 2 * 11008, device="cuda", dtype=torch.bfloat16, requires_grad=True)).sum().backward()

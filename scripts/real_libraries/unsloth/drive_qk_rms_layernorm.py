import torch
from unsloth.kernels import fast_rms_layernorm
from transformers.models.llama.modeling_llama import LlamaRMSNorm
norm = LlamaRMSNorm(128).to("cuda", torch.bfloat16)  # a per-head q/k norm (Qwen3-style), head_dim 128
q = torch.randn(4, 2048, 32, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
fast_rms_layernorm(norm, q).sum().backward()

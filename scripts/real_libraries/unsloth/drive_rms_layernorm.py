import torch
from unsloth.kernels import fast_rms_layernorm
from transformers.models.llama.modeling_llama import LlamaRMSNorm
norm = LlamaRMSNorm(4096).to("cuda", torch.bfloat16)
x = torch.randn(4, 2048, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
fast_rms_layernorm(norm, x).sum().backward()
fast_rms_layernorm(norm, x, gemma=True)

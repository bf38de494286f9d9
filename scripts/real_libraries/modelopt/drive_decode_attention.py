import torch
from modelopt.torch.kernels.common.attention.decode_attention import attention_decode
from modelopt.torch.kernels.quantization.attention.bmm2_qdq import fake_quant_v_onwrite
k_cache = torch.randn(64 * 256, 16, 8, 128, device="cuda", dtype=torch.bfloat16)
v_cache = torch.randn_like(k_cache)
table = torch.arange(64 * 256, device="cuda", dtype=torch.int32).view(64, 256)
lens = torch.full((64,), 4000, device="cuda", dtype=torch.int32)
attention_decode(torch.randn(64, 32, 128, device="cuda", dtype=torch.bfloat16), k_cache, v_cache, table, lens)
fake_quant_v_onwrite(v_cache, table, lens - 16, lens, max_new_tokens=16)

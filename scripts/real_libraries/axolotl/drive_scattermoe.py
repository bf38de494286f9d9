"""axolotl's ScatterMoE experts (plain and with LoRA): a mixture-of-experts layer's forward and backward, routed
by top-k of random logits. Its tests reach these kernels only under --values (the routing's bincount)."""
import torch

from axolotl.integrations.kernels.libs.scattermoe_lora.parallel_experts import ParallelExperts, flatten_sort_count
from axolotl.integrations.kernels.libs.scattermoe_lora.parallel_linear_lora import ScatterMoELoRA

E, K, N, T, TOP_K, R = 8, 1024, 2048, 512, 2, 16
x = torch.randn(T, K, device="cuda", dtype=torch.bfloat16, requires_grad=True)
logits = torch.randn(T, E, device="cuda")
gates, top = torch.topk(torch.softmax(logits, dim=-1), TOP_K, dim=-1)
sorted_experts, sorted_scattered, offsets = flatten_sort_count(top, E)

experts = ParallelExperts(E, K, N).to(device="cuda", dtype=torch.bfloat16)
experts(x, TOP_K, sorted_experts, sorted_scattered, offsets).sum().backward()

W = torch.randn(E, K, N, device="cuda", dtype=torch.bfloat16) * 0.02
lora_A = (torch.randn(R * E, K, device="cuda", dtype=torch.bfloat16) * 0.01).requires_grad_()
lora_B = (torch.randn(N, R * E, device="cuda", dtype=torch.bfloat16) * 0.01).requires_grad_()
out = ScatterMoELoRA.apply(x, W, TOP_K, sorted_experts, sorted_scattered, offsets, lora_A, lora_B, 2.0,
                           None, None, False, False, True, False)
out.sum().backward()

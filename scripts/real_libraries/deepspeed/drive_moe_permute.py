import torch
from deepspeed.moe.ep_kernels import generate_permute_indices, permute_rows, unpermute_rows
ranks, experts_per_rank, tokens, hidden = 8, 8, 8 * 2048 * 2, 4096
experts = ranks * experts_per_rank
counts = torch.full((experts,), tokens // experts, device="cuda", dtype=torch.int32)
max_len = tokens + experts_per_rank * 128  # room for each expert's alignment padding
indices, sizes, offsets = generate_permute_indices(counts, experts_per_rank, ranks, max_len, 128)
rows = torch.randn(tokens, hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
unpermute_rows(permute_rows(rows, indices), indices, tokens).sum().backward()

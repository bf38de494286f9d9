import torch
from auto_round_extension.triton.neuqi_sweep import (neuqi_shared_sweep_triton, neuqi_sweep_triton,
                                                     sym_search_shared_triton, sym_search_triton)
groups, group_size, candidates = 4096 * 11008 // 128, 128, 64
data = torch.randn(groups, group_size, device="cuda")
scales = torch.rand(groups, candidates, device="cuda") + 0.01
neuqi_sweep_triton(data, None, scales, 15)
sym_search_triton(data, None, scales, 8)
fracs = torch.linspace(0.5, 1.0, candidates, device="cuda")
neuqi_shared_sweep_triton(data, None, fracs, 1 / fracs, 15)
sym_search_shared_triton(data, None, fracs, 1 / fracs, 8)

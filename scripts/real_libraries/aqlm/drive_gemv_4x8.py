import torch
from aqlm import QuantizedLinear

layer = QuantizedLinear(4096, 4096, in_group_size=8, out_group_size=1, num_codebooks=4,
                        nbits_per_codebook=8, bias=False, device="cuda", dtype=torch.float16)
layer(torch.randn(1, 4096, device="cuda", dtype=torch.float16))

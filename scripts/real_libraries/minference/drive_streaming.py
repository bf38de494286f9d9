import torch
from minference import streaming_forward
q, k, v = (torch.randn(1, 32, 8192, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
streaming_forward(q, k, v, n_init=128, n_local=3968)

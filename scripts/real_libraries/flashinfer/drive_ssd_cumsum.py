import torch
from flashinfer.triton.kernels.ssd_chunk_state import chunk_cumsum_fwd
dt = torch.randn(4, 4096, 80, device="cuda", dtype=torch.bfloat16)
chunk_cumsum_fwd(dt, -torch.rand(80, device="cuda"), 256, dt_bias=torch.randn(80, device="cuda"), dt_softplus=True)

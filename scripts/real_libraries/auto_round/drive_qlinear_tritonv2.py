import torch
from auto_round_extension.triton.qlinear_tritonv2 import QuantLinear
layer = QuantLinear(4, 128, 4096, 11008, bias=False).to("cuda")
layer(torch.randn(8, 2048, 4096, device="cuda", dtype=torch.float16))

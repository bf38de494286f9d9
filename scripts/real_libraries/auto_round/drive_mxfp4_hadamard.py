import torch
from auto_round.algorithms.transforms.hadamard.utils.triton.mxfp4 import mxfp4_forward_kernel_wrapper
x = torch.randn(8 * 2048, 4096, device="cuda", dtype=torch.bfloat16)
hadamard = torch.randn(32, 32, device="cuda", dtype=torch.bfloat16)
mxfp4_forward_kernel_wrapper(x, hadamard, return_clip_mask=True)

"""A program using a library whose __init__ imports its compiled CUDA extension, absent from a laptop install
(extension_site/ is the library as installed): under capture --as the extension is stood in for, the library
imports, its Triton kernel is launched and recorded, and the one call into the extension stops the program in
one line naming that call's line."""
import torch

import gpu_ops
from gpu_ops.fused import fused

x = torch.ones(4096, device="cuda")
gpu_ops.scale(x)
gpu_ops.scaled_or_converted(x)  # its module imported gpu_ops.cuda's name; only the GPU path would use it
print("optional accelerator:", gpu_ops.gpu_ops_fast_cuda)
fused(x)

import torch
from unsloth.kernels import swiglu_fg_kernel, swiglu_DWf_DW_dfg_kernel
from unsloth.kernels import geglu_exact_forward_kernel, geglu_exact_backward_kernel
from unsloth.kernels import geglu_approx_forward_kernel, geglu_approx_backward_kernel
e, g = (torch.randn(4, 2048, 14336, device="cuda", dtype=torch.bfloat16) for _ in range(2))
dw = torch.randn(4 * 2048, 14336, device="cuda", dtype=torch.bfloat16)
swiglu_fg_kernel(e, g)
swiglu_DWf_DW_dfg_kernel(dw, e.view(-1, 14336), g.view(-1, 14336))
geglu_exact_forward_kernel(e, g)
geglu_exact_backward_kernel(dw, e.view(-1, 14336), g.view(-1, 14336))
geglu_approx_forward_kernel(e, g)
geglu_approx_backward_kernel(dw, e.view(-1, 14336), g.view(-1, 14336))

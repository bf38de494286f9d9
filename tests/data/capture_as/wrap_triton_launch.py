"""A launch through torch.library.wrap_triton outside a triton_op (as flash-attn's rotary makes its launch):
torch routes it through its higher-order op triton_kernel_wrapper_mutation, which needs a rule per tensor type."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


x = torch.randn(4096, device="cuda")
y = torch.empty_like(x)
torch.library.wrap_triton(scale_kernel)[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
print("launched", y.device)

"""A kernel that writes through an address it reads from a table (grouped GEMM's way of reaching many tensors):
the tensor written is never given to the launch, only its data_ptr() is, inside another tensor. Under --values
the read of `x` afterwards must be refused (the kernel may have written it); `y`, whose address was never taken,
stays known."""
import torch
import triton
import triton.language as tl


@triton.jit
def through_table(table_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    address = tl.load(table_ptr)
    target = address.to(tl.pointer_type(tl.float32))
    tl.store(target + offs, tl.full([BLOCK], 1.0, tl.float32), mask=offs < n)


x = torch.zeros(16, device="cuda")
y = torch.zeros(16, device="cuda")
table = torch.tensor([x.data_ptr()], dtype=torch.int64, device="cuda")
through_table[(1,)](table, 16, BLOCK=16)
print("y", float(y[0]))
print("x", float(x[0]))

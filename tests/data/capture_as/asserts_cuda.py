"""Host code that asserts its tensors are on the GPU before launching (a varlen attention path's `assert
q.is_cuda`), then reads what the kernel computed: captured --as a target with --run-kernels, the tensors hold
values on the CPU for Triton's interpreter and still say they are on cuda."""
import torch
import triton
import triton.language as tl


@triton.jit
def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


def varlen(x, cu_seqlens):
    assert x.is_cuda and cu_seqlens.is_cuda, "inputs must be on a CUDA device"
    assert x.device.type == "cuda" and x.get_device() == 0
    out = torch.empty_like(x)
    n = int(cu_seqlens[-1].item())  # host code that needs a value: what --run-kernels is for
    double[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
    return out


x = torch.arange(1000, dtype=torch.float32).cuda()
out = varlen(x, torch.tensor([0, 500, 1000], device="cuda", dtype=torch.int32))
assert out.is_cuda and not out.cpu().is_cuda
print("sum", float(out.sum().item()), out.device)

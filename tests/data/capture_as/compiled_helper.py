"""Host-side helpers under torch.compile (plain, with options, a module) around a library's own Triton launch:
Dynamo's first call asks what only a running GPU answers; under --as they run as plain Python."""
import torch
import triton
import triton.language as tl


@torch.compile
def gates(f):
    return torch.nn.functional.logsigmoid(f.float()).cumsum(-1)


@torch.compile(dynamic=True, fullgraph=True)
def halve(x):
    return x * 0.5


@triton.jit
def scale(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs, mask=offs < n) * 2, mask=offs < n)


norm = torch.compile(torch.nn.LayerNorm(4096).to("cuda"))
b = halve(gates(norm(torch.randn(8, 4096, device="cuda"))))
out = torch.empty_like(b)
scale[(triton.cdiv(b.numel(), 1024),)](b, out, b.numel(), BLOCK=1024)
print("out", tuple(out.shape), out.device, type(norm).__name__)

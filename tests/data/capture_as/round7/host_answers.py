"""What round 7's libraries (never used before) asked of the device on their own tests, each with the kernel
launch that followed: a view made in `torch.inference_mode()` of a tensor made outside it (an inference pipeline's
eager reference), in-place ops that change a tensor's shape (`as_strided_`, `resize_`, `unsqueeze_`, `t_`: torch's
`clone_input` as `torch.library.opcheck` runs it), an optimizer's step (it asks the stream whether a CUDA graph
is being captured), `torch._dynamo.reset()` (Inductor's CUDA-graph module imports CUDA-build names),
`torch.cuda.mem_get_info()` as a guard, and what `torch.library.opcheck` does around an op: `fork_rng` (the CUDA
generator's state kept and put back) and its own dispatch mode, which must see the device's tensors, not the
meta tensors inside them."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


def launch(x):
    scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, x.numel(), BLOCK=1024)


x = torch.randn(11, 96, device="cuda")
with torch.inference_mode():
    y = x[None]  # a view of a tensor made outside inference mode
    print("inference view", tuple(y.shape))
    launch(y)

for name, op, shape in (("as_strided_", lambda t: t.as_strided_((2, 3, 4), (12, 4, 1), 0), (2, 3, 4)),
                        ("resize_", lambda t: t.resize_(50, 40), (50, 40)),
                        ("unsqueeze_", lambda t: t.unsqueeze_(0), (1, 100)),
                        ("t_", lambda t: t.view(10, 10).t_(), (10, 10))):
    t = op(torch.empty(100, device="cuda"))
    print(name, tuple(t.shape), t.stride(), tuple(t.shape) == shape)

w = torch.nn.Parameter(torch.randn(4096, device="cuda"))
optimizer = torch.optim.Adam([w])
launch(w.data)
w.grad = torch.ones_like(w)
optimizer.step()
print("optimizer stepped")

torch._dynamo.reset()
print("dynamo reset")

free, total = torch.cuda.mem_get_info()
print("free", free, "total", total)
if free >= 80 * 2**30:  # the guard a test puts on an 80 GiB case: a fresh H100 80GB has less free
    print("would run the 80 GiB case")
else:
    print("skips the 80 GiB case")

from torch._subclasses.schema_check_mode import SchemaCheckMode  # noqa: E402

with torch.random.fork_rng(devices=[0]):
    with SchemaCheckMode():
        z = torch.zeros(4096, device="cuda") + 1
    launch(z)
print("opcheck's way", tuple(z.shape))

g = torch.Generator(device="cuda").manual_seed(0)  # seeded test inputs (axolotl's)
seeded = torch.randn(4096, device="cuda", generator=g)
launch(seeded)
print("generator", g.device, isinstance(g, torch.Generator), isinstance(torch.default_generator, torch.Generator))

torch.set_default_device("cuda")  # model code's way: every factory without device= makes its tensor on the GPU
made = torch.zeros(4096)
launch(made)
print("default device", made.device)

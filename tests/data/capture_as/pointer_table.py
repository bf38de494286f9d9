"""A table of pointers made from data_ptr() (a KV-cache block table, grouped GEMM operands): under --as the
virtual device answers addresses of its own — aligned as the caching allocator aligns, a view offset from its
storage, distinct storages apart — and the gather that reads the table is recorded."""
import torch
import triton
import triton.language as tl
@triton.jit
def gather(ptrs, out, BLOCK: tl.constexpr):
    i = tl.program_id(0)
    src = tl.load(ptrs + i).to(tl.pointer_type(tl.float16))
    tl.store(out + i * BLOCK + tl.arange(0, BLOCK), tl.load(src + tl.arange(0, BLOCK)))
blocks = [torch.empty(256, device="cuda", dtype=torch.float16) for _ in range(4)]
view = blocks[0][8:]
assert blocks[0].data_ptr() % 512 == 0 and view.data_ptr() - blocks[0].data_ptr() == 16
assert len({b.data_ptr() for b in blocks}) == 4 and blocks[0].data_ptr() != 0
print("addresses ok")
table = torch.tensor([b.data_ptr() for b in blocks], device="cuda", dtype=torch.int64)
out = torch.empty(4 * 256, device="cuda", dtype=torch.float16)
gather[(4,)](table, out, BLOCK=256)

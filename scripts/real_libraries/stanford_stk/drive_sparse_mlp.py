import torch
import stk
# A MegaBlocks-style expert MLP: 4096 tokens, hidden 1024, ffn 4096, a 128-block topology 75 % sparse.
topo = stk.random.mask(4096, 4096, 0.75, blocking=128).to("cuda")
x = torch.randn(4096, 1024, device="cuda", dtype=torch.float16, requires_grad=True)
w1 = torch.randn(1024, 4096, device="cuda", dtype=torch.float16, requires_grad=True)
w2 = torch.randn(4096, 1024, device="cuda", dtype=torch.float16, requires_grad=True)
h = stk.ops.sdd(x, w1, topo)
y = stk.ops.dsd(h, w2)
y.sum().backward()

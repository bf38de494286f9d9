"""A device named by keyword, as libraries' own tests name it: `torch.device(device="cuda")` (flashinfer's
get_compute_capability) and `Module.to(device="cuda", dtype=...)` (modelopt's tests before quantizing), beside
the positional forms; then `torch.cuda.device(weight.device)`, which needs a cuda device."""
import torch
from torch import nn

print("constructed", torch.device(device="cuda").type, torch.device(type="cuda", index=0), torch.device("cuda"))
for how, move in [("kw device+dtype", lambda m: m.to(device="cuda", dtype=torch.bfloat16)),
                  ("kw device", lambda m: m.to(device="cuda")),
                  ("positional", lambda m: m.to("cuda")),
                  ("cuda()", lambda m: m.cuda())]:
    layer = move(nn.Linear(60, 512, bias=False))
    print(f"{how}: {layer.weight.device} {layer.weight.dtype}")
    with torch.cuda.device(layer.weight.device):
        pass

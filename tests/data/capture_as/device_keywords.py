"""A device named by keyword, as libraries' own tests name it: `torch.device(device="cuda")` (flashinfer's
get_compute_capability) and `Module.to(device="cuda", dtype=...)` (modelopt's tests before quantizing), beside
the positional forms; then `torch.cuda.device(weight.device)`, which needs a cuda device. With values on the CPU
(--values, --run-kernels) the move keeps each parameter object and gives it the device's face."""
import torch
from torch import nn

print("constructed", torch.device(device="cuda").type, torch.device(type="cuda", index=0), torch.device("cuda"))
for how, move in [("kw device+dtype", lambda m: m.to(device="cuda", dtype=torch.bfloat16)),
                  ("kw device", lambda m: m.to(device="cuda")),
                  ("positional", lambda m: m.to("cuda")),
                  ("cuda()", lambda m: m.cuda())]:
    layer = nn.Linear(60, 512, bias=False)
    weight = layer.weight
    layer = move(layer)
    # the parameter is the same object (an optimizer made before the move holds it) and still a Parameter
    kept = layer.weight is weight and isinstance(layer.weight, nn.Parameter)
    print(f"{how}: {layer.weight.device} {layer.weight.dtype} {kept}")
    with torch.cuda.device(layer.weight.device):
        pass

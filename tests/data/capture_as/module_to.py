"""Moving to the device with the device given positionally: `nn.Module.to("cuda")` calls
`t.to(device, dtype_or_None, non_blocking)`, and code calls `.to("cuda", torch.float16)` itself."""
import torch

layer = torch.nn.Linear(16, 8).to("cuda")
print("layer", layer.weight.device, layer.weight.dtype)
half = torch.nn.Linear(4, 4).to("cuda", torch.float16)
print("half", half.weight.device, half.weight.dtype)
x = torch.randn(4, 16)
y = x.to("cuda", None, False)
print("y", y.device, y.dtype, y.to("cuda", None, False) is y)
print("z", y.to("cuda", torch.bfloat16).dtype, x.to(0, torch.float16, copy=True).device)
print("out", layer(y).shape, layer(y).device)

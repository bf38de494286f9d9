import torch
x = torch.ones(4, device="cuda")
torch.cuda.get_device_properties(torch.cuda.device_of(x))

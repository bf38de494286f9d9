import torch
from lion_pytorch import Lion

model = torch.nn.Linear(4096, 4096).cuda()
opt = Lion(model.parameters(), lr=1e-4, weight_decay=1e-2, use_triton=True)
model(torch.randn(8, 4096, device="cuda")).sum().backward()
opt.step()

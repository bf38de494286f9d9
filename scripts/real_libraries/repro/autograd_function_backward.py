import torch
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
x = torch.ones(4, device="cuda", requires_grad=True)
F.apply(x).sum().backward()

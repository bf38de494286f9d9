"""A torch.compile'd model for `ttinspect capture` on a GPU (scripts/device_issue29_replay.sh PART=model): a
two-layer pre-norm transformer (attention written out: matmuls and a softmax, so Inductor fuses it into its
own Triton kernels; a GELU MLP), trained for three steps in bf16 autocast — forward and backward, the
optimizer's update too, each compiled by Inductor into Triton kernels it generates and launches itself."""

from __future__ import annotations

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.out = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, tokens, width = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(batch, tokens, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-1, -2)) * (q.shape[-1] ** -0.5)
        causal = torch.ones(tokens, tokens, device=x.device, dtype=torch.bool).tril()
        attention = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1) @ v
        x = x + self.out(attention.transpose(1, 2).reshape(batch, tokens, width))
        return x + self.mlp(self.norm2(x))


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(Block(512, 8), Block(512, 8), nn.LayerNorm(512)).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    @torch.compile
    def train_step(x: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        loss.backward()
        return loss

    @torch.compile
    def update() -> None:
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    x = torch.randn(8, 256, 512, device="cuda")
    for _ in range(3):
        train_step(x)
        update()
    torch.cuda.synchronize()
    print("capture_model: done")


if __name__ == "__main__":
    main()

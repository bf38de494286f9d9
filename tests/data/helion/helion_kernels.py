"""Helion kernels for tests/test_helion.py: an elementwise add, a matmul whose reduction is a loop (Helion
lists two configs for it), and a row softmax. The examples make their tensors on the device the file is
imported under (ttinspect's virtual device: no values)."""

import torch

import helion
import helion.language as hl


@helion.kernel()
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(out.size()):
        out[tile] = x[tile] + y[tile]
    return out


@helion.kernel(configs=[helion.Config(block_sizes=[64, 64, 32], num_warps=4, num_stages=3),
                        helion.Config(block_sizes=[128, 64, 64], num_warps=8, num_stages=4)])
def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, k = a.size()
    _, n = b.size()
    out = torch.empty([m, n], dtype=a.dtype, device=a.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, a[tile_m, tile_k], b[tile_k, tile_n])
        out[tile_m, tile_n] = acc.to(out.dtype)
    return out


@helion.kernel()
def softmax(x: torch.Tensor) -> torch.Tensor:
    n, _m = x.size()
    out = torch.empty_like(x)
    for tile_n in hl.tile(n):
        out[tile_n, :] = torch.nn.functional.softmax(x[tile_n, :], dim=1)
    return out


TTINSPECT_EXAMPLES = {
    "square": {"kernel": matmul, "args": {"a": "fp16[512, 256]", "b": "fp16[256, 512]"}, "arch": "sm_90"},
    "rows": {"kernel": "softmax", "args": {"x": torch.empty(4096, 1024, dtype=torch.float32, device="cuda")}},
}

"""fastvideo's SLA (sparse-linear attention) backend's sparse path, as SLAAttentionImpl.forward calls it
(fastvideo/attention/backends/sla.py:300-308): the block map from mean-pooled q/k (compress_kernel), then the
block-sparse attention of fastvideo_kernel (forward, and its backward for training), at a 720p Wan-like
geometry: 12 heads of 128, 32,760 tokens padded to 64-blocks, 10 % of key blocks."""
import torch
from fastvideo.attention.backends.sla import get_block_map
from fastvideo_kernel.triton_kernels.sla_triton import _attention

B, H, L, D = 1, 12, 32768, 128
q, k, v = (torch.randn(B, H, L, D, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
sparse_map, lut, topk = get_block_map(q, k, topk_ratio=0.1, BLKQ=64, BLKK=64)
out = _attention.apply(q, k, v, sparse_map, lut, topk, 64, 64)
out.sum().backward()
print(out.shape, q.grad.shape)

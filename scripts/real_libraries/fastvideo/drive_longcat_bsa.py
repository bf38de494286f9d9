"""fastvideo's LongCat-Video block-sparse attention (third_party/longcat_video/block_sparse_attention), as the
LongCat DiT calls it (fastvideo/models/dits/longcat.py:398): flash_attn_bsa_3d over a 16x48x80 latent video
(61,440 tokens), 32 heads of 128, its default 4x4x8 chunks at sparsity 0.875 (inference: forward only;
the backward's host code reads the block indices, see the R7b note in the manifest)."""
import torch
from fastvideo.third_party.longcat_video.block_sparse_attention.bsa_interface import flash_attn_bsa_3d

shape = (16, 48, 80)
q, k, v = (torch.randn(1, 32, 16 * 48 * 80, 128, device="cuda", dtype=torch.bfloat16)
           for _ in range(3))
out = flash_attn_bsa_3d(q, k, v, latent_shape_q=shape, latent_shape_k=shape)
print(out.shape)

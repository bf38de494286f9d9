"""xfuser's VSA-H3 sparse video attention through its public entry point, the Triton path (tile pooling and the
gated sparse attention), at its tests' geometry: a 65+3-token text prefix and a 5x6x7 video, 4 heads of 64."""
import torch
from xfuser.core.vsa_h3_attention import build_h3_vsa_metadata, h3_vsa_attention

metadata = build_h3_vsa_metadata(prefix_segments=(65, 3), video_shape=(5, 6, 7), device="cuda")
shape = (1, 4, metadata.total_seq_length, 64)
q, k, v, gate = (torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(4))
out = h3_vsa_attention(q, k, v, gate, metadata, use_triton=True)
print(out.shape)

import torch
from mlstm_kernels.torch.backend_module import mLSTMBackend, mLSTMBackendConfig
# xLSTM-7B's generation: a 1000-token prompt (chunks, then the tail step by step), then one decoding step.
backend = mLSTMBackend(mLSTMBackendConfig(chunkwise_kernel="chunkwise--triton_xl_chunk", mode="inference",
                                          sequence_kernel="native_sequence__triton", step_kernel="triton"))
q, k = (torch.randn(1, 8, 1000, 256, device="cuda", dtype=torch.bfloat16) for _ in range(2))
v = torch.randn(1, 8, 1000, 512, device="cuda", dtype=torch.bfloat16)
i, f = (torch.randn(1, 8, 1000, device="cuda", dtype=torch.bfloat16) for _ in range(2))
h, (c, n, m) = backend(q, k, v, i, f)
backend(q[:, :, :1], k[:, :, :1], v[:, :, :1], i[:, :, :1], f[:, :, :1], c, n, m)

import torch
import flashinfer
append_indptr = torch.arange(0, 65 * 512, 512, device="cuda", dtype=torch.int32)
seq_lens = torch.full((64,), 2048, device="cuda", dtype=torch.int32)
flashinfer.get_batch_indices_positions(append_indptr, seq_lens, 64 * 512)

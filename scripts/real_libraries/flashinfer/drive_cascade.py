import torch
from flashinfer.triton.cascade import merge_state, merge_state_in_place, merge_states, variable_length_merge_states
v = torch.randn(4096, 32, 128, device="cuda", dtype=torch.float16)
s = torch.randn(4096, 32, device="cuda", dtype=torch.float32)
merge_state(v, s, torch.randn_like(v), torch.randn_like(s))
merge_state_in_place(v, s, torch.randn_like(v), torch.randn_like(s))
vs = torch.randn(512, 8, 32, 128, device="cuda", dtype=torch.float16)
merge_states(vs, torch.randn(512, 8, 32, device="cuda"))
indptr = torch.arange(0, 4097 * 4, 4, device="cuda", dtype=torch.int32)
v4 = torch.randn(4096 * 4, 32, 128, device="cuda", dtype=torch.float16)
variable_length_merge_states(v4, torch.randn(4096 * 4, 32, device="cuda"), indptr)

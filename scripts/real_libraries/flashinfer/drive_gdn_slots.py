import torch
from flashinfer.gdn_paged import gdn_paged_decode_slots, gdn_paged_prefill_slots
pages = torch.arange(256 * 32, device="cuda", dtype=torch.int32)
indptr = torch.arange(0, 257 * 32, 32, device="cuda", dtype=torch.int32)
last = torch.full((256,), 17, device="cuda", dtype=torch.int32)
cu = torch.arange(0, 257 * 512, 512, device="cuda", dtype=torch.int32)
gdn_paged_prefill_slots(cu, pages, indptr, 64, last)
gdn_paged_decode_slots(pages, indptr, last)

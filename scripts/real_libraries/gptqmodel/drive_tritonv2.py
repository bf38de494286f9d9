import torch
from gptqmodel.nn_modules.qlinear.tritonv2 import TritonV2Linear
layer = TritonV2Linear(bits=4, group_size=128, desc_act=False, sym=True, in_features=4096, out_features=11008)
layer = layer.to("cuda").eval()
layer.post_init()
layer(torch.randn(1, 2048, 4096, device="cuda", dtype=torch.float16))

import torch
from gptqmodel.nn_modules.qlinear.gemm_awq_triton import AwqGEMMTritonLinear
layer = AwqGEMMTritonLinear(bits=4, group_size=128, sym=True, desc_act=False, in_features=4096,
                            out_features=11008, bias=False, register_buffers=True).to("cuda").eval()
layer.post_init()
layer(torch.randn(1, 1, 4096, device="cuda", dtype=torch.float16))
layer(torch.randn(1, 2048, 4096, device="cuda", dtype=torch.float16))

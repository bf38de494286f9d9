import torch
from conch.ops.vision.nms import nms
boxes = torch.rand(4096, 4, device="cuda") * 100
nms(boxes, torch.rand(4096, device="cuda"), 0.5)

"""The virtual device: while a user's file is imported and its launches planned, the code sees the target's
GPU (torch.cuda, torch.version, "cuda" tensors, Triton's driver) — `virtual_device` in device.py."""

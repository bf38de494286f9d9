"""What a library asks torch.accelerator at import to pick its backend (`current_accelerator().type`): a CPU
build of torch says there is none."""
import torch

accelerator = torch.accelerator.current_accelerator()
print("accelerator", accelerator.type, torch.accelerator.current_accelerator(check_available=True))
print("available", torch.accelerator.is_available(), "count", torch.accelerator.device_count(),
      "index", torch.accelerator.current_device_index())
print("allocated before", torch.accelerator.memory_allocated())
with torch.accelerator.device_index(0):
    torch.accelerator.synchronize()
print("stream", torch.accelerator.current_stream().device)
print("module", torch.get_device_module().__name__)

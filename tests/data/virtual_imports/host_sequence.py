"""A typical program's host code, run in a process that holds sm_90's virtual device for its whole run:
prints what it saw as one JSON object (tests/test_virtual_whole_run.py)."""

import json
import sys

from ttinspect.virtual import hold_for_process, runs_nothing

numbers = hold_for_process(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)

import torch  # noqa: E402 - imported after the device is held, as a captured program's own imports are
from torch._C import _cuda_getCurrentRawStream as get_raw_stream  # noqa: E402 - what Inductor's files do

seen = {"runs_nothing": runs_nothing(), "initialized_at_start": torch.cuda.is_initialized(),
        "allocated_at_start": torch.cuda.memory_allocated()}
torch.manual_seed(0)
torch.cuda.manual_seed_all(0)
torch.cuda.set_device(0)
x = torch.randn(1024, 512, device="cuda", dtype=torch.float16)
w = torch.empty(512, 256, device="cuda", dtype=torch.float16)
side = torch.cuda.Stream()
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
with torch.cuda.stream(side):
    y = (x @ w).relu_()
    seen["raw_stream_inside"] = get_raw_stream(0) == side.cuda_stream != 0
    side.wait_stream(torch.cuda.default_stream())
end.record()
end.synchronize()
torch.cuda.current_stream().wait_stream(side)
torch.cuda.synchronize()
torch.cuda.empty_cache()
seen.update({
    "initialized": torch.cuda.is_initialized(),
    "raw_stream_after": get_raw_stream(0),
    "current_is_default": torch.cuda.current_stream() == torch.cuda.default_stream(),
    "y": [str(y.device), list(y.shape), str(y.dtype), list(y.stride())],
    "event_done": end.query(),
    "capability": list(torch.cuda.get_device_capability()),
    "sms": torch.cuda.get_device_properties(0).multi_processor_count,
})
for name, ask in (("elapsed_time", lambda: start.elapsed_time(end)), ("mem_get_info", torch.cuda.mem_get_info),
                  ("memory_allocated", torch.cuda.memory_allocated), ("item", lambda: y.sum().item())):
    try:
        seen[name] = ask()
    except Exception as error:  # the refusal, as the program's own error would read
        seen[name] = f"{type(error).__name__}: {error}"
print(json.dumps(seen))

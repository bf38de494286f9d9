"""Which GPU a device argument names, as torch's `_get_device_index` reads it (None, an index, "cuda",
"cuda:1", a torch.device), checked against the virtual device's count: one rule for every face."""

from __future__ import annotations

import sys
from typing import Any

from ttinspect.virtual import state


def device_index(device: Any, asked: str) -> int:
    """The index `device` names; `asked` names the question in the error for one the device lacks."""
    if device is None:
        return state.selected()
    idx = getattr(device, "idx", None)  # torch.cuda.device / device_of(t): torch reads their index this way
    if isinstance(idx, int) and not isinstance(idx, bool) and not isinstance(device, (str, int)):
        device = idx
    torch = sys.modules.get("torch")  # a device is given only by code that imported torch
    device_type = getattr(torch, "device", None)
    if isinstance(device, str) and device_type is not None:
        device = device_type(device)
    if device_type is not None and isinstance(device, device_type):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        index = state.selected() if device.index is None else device.index
    elif isinstance(device, int) and not isinstance(device, bool):
        index = device
    else:
        raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
    count = state.current().get("device_count", "torch.cuda.device_count()")
    if not 0 <= index < count:
        raise AssertionError(f"Invalid device id ({asked}: the virtual device has {count} GPU(s); "
                             f"--device-props device_count=N gives more)")
    return index

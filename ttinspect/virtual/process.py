"""The whole-run mode (`ttinspect capture --as ARCH`): a program runs on this machine's CPU with the target's
virtual device answering for the whole process, and its kernels are recorded, never run.

`hold_for_process(target, device_props)` enters the virtual device for the rest of the process — the faces
installed now and on later imports of torch, Triton's driver and the management-library bindings, exactly as
a `virtual_device` block installs them, never left — and switches them to the answers of a process where
nothing runs (`runs_nothing()`): synchronize, streams, events, empty_cache and the allocator's counters
before any allocation are answered instead of refused (nothing_runs.py, streams.py, private_entries.py).
"""

from __future__ import annotations

from typing import Iterable

from ttinspect.errors import UsageError
from ttinspect.targets.lookup import parse_arch
from ttinspect.virtual import compile_eager, extension_stand_in, install, state
from ttinspect.virtual.numbers import DeviceNumbers, numbers_for
from ttinspect.virtual.overrides import parse_device_props


def device_props_items(text: str | Iterable[str] | None) -> list[str]:
    """`--device-props` as the capture passes it: one KEY=VALUE per line (or a list of them); a line may also
    hold several separated by commas ("num_sms=114,smem=100KB") where every part is KEY=VALUE — a name
    with a comma in it ("name=A, B") stays whole."""
    if text is None:
        return []
    lines = text.splitlines() if isinstance(text, str) else list(text)
    items: list[str] = []
    for line in (raw.strip() for raw in lines):
        parts = [part.strip() for part in line.split(",")]
        items.extend(parts if all("=" in part for part in parts) else [line] if line else [])
    return items


def hold_for_process(target: str, device_props: str | Iterable[str] | None = None, *,
                     values_on_cpu: bool = False) -> DeviceNumbers:
    """Hold `target`'s virtual device ("sm_90", "gfx942"; `device_props` as above) for the rest of the
    process, in the mode where nothing runs on a GPU. Returns its numbers. Holding the same device again
    returns the one held; another is a UsageError (one process is one GPU's run). `values_on_cpu`
    (`capture --as ARCH --run-kernels`): tensors made on "cuda" are CPU tensors with values, for Triton's
    interpreter to run the kernels on — the device questions keep the target's answers."""
    if values_on_cpu:
        state.hold_values_on_cpu()
    numbers = numbers_for(parse_arch(target), parse_device_props(device_props_items(device_props)))
    held = state.held()
    if held is not None:
        if (held.target.name, dict(held.overrides)) != (numbers.target.name, dict(numbers.overrides)):
            raise UsageError(f"this process already runs as {held.label}; it cannot run as {numbers.label} too")
        return held
    extension_stand_in.install()  # a library's compiled extension a laptop install lacks (whole runs only)
    compile_eager.turn_dynamo_off()
    if state.hold(numbers):
        install.install()
    else:  # inside a virtual_device block: the faces are there, and stay when it ends
        install.changed()
    return numbers


def runs_nothing() -> bool:
    """True in a process holding the virtual device for its whole run (`hold_for_process`): no kernel
    runs, launches are only recorded."""
    return state.runs_nothing()

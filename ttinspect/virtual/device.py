"""`virtual_device(target, overrides)`: while the block runs, the code sees the target's GPU — torch.cuda's
device questions, torch.version, tensors allocated on "cuda", Triton's `driver.active` — as a real one of that
target would answer them (a named device per target: devices.py). What the device cannot answer is refused in
one line naming the user's file:line. Nothing is imported that the code did not import; everything is as it
was after the block, after an exception too, and blocks nest (the innermost one's device answers).

    with virtual_device(target, parse_device_props(["num_sms=114"])) as device:
        module = import_the_users_file()
        print(device.describe())   # virtual device: NVIDIA H100 80GB HBM3 (sm_90, 114 SMs; --device-props ...)
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Mapping

from ttinspect.targets.nvidia import Target
from ttinspect.virtual import install, state
from ttinspect.virtual.numbers import DeviceNumbers, numbers_for
from ttinspect.virtual.overrides import parse_device_props
from ttinspect.virtual.refusal import VirtualDeviceError

__all__ = ["VirtualDevice", "VirtualDeviceError", "parse_device_props", "describe_device", "questions_asked",
           "virtual_device"]


def questions_asked() -> int:
    """How many device questions user code asked in this process (torch.cuda's, Triton driver's): a
    count taken before and after a block tells whether the code asked the device anything. torch.version's
    strings are plain attributes, not counted."""
    return state.questions()


class VirtualDevice:
    """The device a block's code sees: its numbers, and how outputs name it."""

    def __init__(self, numbers: DeviceNumbers):
        self.numbers = numbers

    @property
    def name(self) -> str:
        return str(self.numbers.values["name"])

    def describe(self) -> str:
        """One line for output headers: "virtual device: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"."""
        numbers = self.numbers
        units = "CUs" if numbers.amd and numbers.target.amd and numbers.target.amd.family.startswith("CDNA") \
            else "WGPs" if numbers.amd else "SMs"
        count = numbers.values.get("multi_processor_count")
        parts = [numbers.target.name] + ([f"{count} {units}"] if count else [])
        text = f"virtual device: {self.name} ({', '.join(parts)}"
        if numbers.overrides:
            shown = " ".join(f"{key}={value}" for key, value in numbers.overrides.items())
            text += f"; --device-props {shown}"
        return text + ")"

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: every number the device answers with (None: refused, no source), and the
        overrides given."""
        numbers = self.numbers
        major, minor = numbers.capability
        return {
            "name": self.name,
            "target": numbers.target.name,
            "backend": numbers.target.backend,
            "capability": [major, minor],
            "arch": numbers.arch_name if numbers.amd else None,
            "measured": numbers.spec.measured,
            "properties": dict(numbers.values),
            "overrides": dict(numbers.overrides),
        }


def describe_device(target: Target, overrides: Mapping[str, Any] | None = None) -> str:
    """The header line of the device `virtual_device(target, overrides)` would be, without entering it."""
    return VirtualDevice(numbers_for(target, overrides)).describe()


@contextlib.contextmanager
def virtual_device(target: Target, overrides: Mapping[str, Any] | None = None, *,
                   imports_only: bool = False) -> Iterator[VirtualDevice]:
    """`target`: a ttinspect Target (targets/); `overrides`: parse_device_props()'s result. `imports_only`: the
    block imports a file for a report and launches nothing, so a stream, an event or synchronize asked at
    import is answered as in the whole-run mode (state.nothing_launches)."""
    numbers = numbers_for(target, overrides)
    if state.push(numbers):
        try:
            install.install()
        except BaseException:
            state.pop(numbers)
            install.uninstall()
            raise
    else:
        install.changed()
    if imports_only:
        state.enter_imports_only()
    try:
        yield VirtualDevice(numbers)
    finally:
        if imports_only:
            state.leave_imports_only()
        if state.pop(numbers):
            install.uninstall()
        else:
            install.changed()

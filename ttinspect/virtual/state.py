"""Which virtual device is active now: the innermost `virtual_device` block's. The faces (torch's, Triton's)
are installed once and read it here on every question, so nested blocks only push and pop."""

from __future__ import annotations

from ttinspect.virtual.numbers import DeviceNumbers

_ACTIVE: list[DeviceNumbers] = []
_QUESTIONS = [0]  # how many questions the faces were asked in this process: outputs name a device that was


def current() -> DeviceNumbers:
    """The active device; the faces are only installed while one is. Every face asks here, so this
    counts the questions."""
    assert _ACTIVE, "a virtual-device face was used outside a virtual_device block"
    _QUESTIONS[0] += 1
    return _ACTIVE[-1]


def active() -> DeviceNumbers:
    """The active device, for ttinspect's own installing of the faces: not a question of the user's code."""
    assert _ACTIVE, "no virtual_device block is active"
    return _ACTIVE[-1]


def questions() -> int:
    return _QUESTIONS[0]


def push(numbers: DeviceNumbers) -> bool:
    """Make `numbers` the active device; True when it is the first (the faces must be installed)."""
    _ACTIVE.append(numbers)
    return len(_ACTIVE) == 1


def pop(numbers: DeviceNumbers) -> bool:
    """End `numbers`' block (found by identity: blocks may end out of order); True when none is left."""
    for index in range(len(_ACTIVE) - 1, -1, -1):
        if _ACTIVE[index] is numbers:
            del _ACTIVE[index]
            break
    return not _ACTIVE


_SELECTED = [0]  # the current device index (torch.cuda.set_device, the driver's set_current_device)


def selected() -> int:
    return _SELECTED[0]


def select(index: int) -> None:
    _SELECTED[0] = index


def reset_selection() -> None:
    """Each time the faces are installed, device 0 is current, as in a fresh process."""
    _SELECTED[0] = 0

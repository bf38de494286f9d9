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
    """Each time the faces are installed, device 0 is current and CUDA uninitialised, as in a fresh process."""
    _SELECTED[0] = 0
    _INITIALIZED[0] = False
    _ALLOCATED[0] = False


_INITIALIZED = [False]  # torch.cuda.is_initialized(): False until the code does what initialises CUDA
_ALLOCATED = [False]  # whether the code has allocated on the device (the allocator's counters leave 0)


def initialize() -> None:
    """The code did what initialises CUDA in torch (a tensor on "cuda", current_device(), a stream, ...)."""
    _INITIALIZED[0] = True


def initialized() -> bool:
    return _INITIALIZED[0]


def allocate() -> None:
    """A tensor was made on the device: CUDA is initialised and the allocator holds memory."""
    _INITIALIZED[0] = _ALLOCATED[0] = True


def allocated() -> bool:
    return _ALLOCATED[0]


# The whole-run mode (`hold_for_process`): the process holds one device until it ends and its kernels are
# recorded, never run, so questions whose answer only matters to a kernel that runs (a stream, an event,
# synchronize) have a true harmless answer instead of a refusal.
_RUNS_NOTHING = [False]


def runs_nothing() -> bool:
    """True in a process that holds the virtual device for its whole run (`capture --as`): no kernel runs."""
    return _RUNS_NOTHING[0]


# Blocks entered to import a user's file for a report (refs/resolver.py's import scope): the code is imported
# and its launches planned, never made — a stream handle it keeps at import (a library's launcher caching
# `_cuda_getCurrentRawStream(i)` per device) has the same true, harmless answer as in the whole-run mode.
_IMPORTS_ONLY = [0]


def nothing_launches() -> bool:
    """True where no kernel is launched: the whole-run mode, or a block that only imports (a report's)."""
    return _RUNS_NOTHING[0] or _IMPORTS_ONLY[0] > 0


def enter_imports_only() -> None:
    _IMPORTS_ONLY[0] += 1


def leave_imports_only() -> None:
    _IMPORTS_ONLY[0] = max(0, _IMPORTS_ONLY[0] - 1)


_VALUES_ON_CPU = [False]  # `capture --as ARCH --run-kernels`: "cuda" tensors are the CPU's, with values


def values_on_cpu() -> bool:
    """True in a whole run whose kernels run in Triton's interpreter: a tensor made on "cuda" is a CPU
    tensor with values (the interpreter reads them), not a tensor without any."""
    return _VALUES_ON_CPU[0]


def hold_values_on_cpu() -> None:
    _VALUES_ON_CPU[0] = True


def hold(numbers: DeviceNumbers) -> bool:
    """Hold `numbers` for the rest of the process, under every block (never popped); True when it is the
    first active device (the faces must be installed)."""
    _RUNS_NOTHING[0] = True
    _ACTIVE.insert(0, numbers)
    return len(_ACTIVE) == 1


def held() -> DeviceNumbers | None:
    return _ACTIVE[0] if _RUNS_NOTHING[0] and _ACTIVE else None

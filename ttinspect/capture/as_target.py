"""`ttinspect capture --as ARCH`: the program runs on this machine's CPU as if on the target's GPU, and its
Triton launches are recorded as that GPU's launches would be — never executed.

The captured process holds the target's virtual device for its whole run (virtual/: torch.cuda, Triton's
driver, NVML and "cuda" tensors that have shapes, strides and dtypes but no values), so the host code takes the
branches the target would (a BLOCK of 128 on an H100, not the CPU branch's 64). Each launch is specialized as a
launch of the same arguments on the GPU (kernel/specialize.py; a tensor is 16-byte aligned when its offset into
its allocation is: CUDA's caching allocator hands out 512-byte-aligned blocks), its grid is evaluated from the
bound arguments as the JIT evaluates it, and it is counted at its launch site. An autotuner times nothing: each
config it would time is recorded as a compile of its own (the tuning's compiles; the record's timings are null:
"not timed"), and the launch that follows is counted against the first config, since without timings the
autotuner's choice is not known. Nothing is compiled during the run: `report X.ttcap:kernel` compiles offline.

What only values can decide (`.item()`, a shape read from a tensor's contents) is refused by the virtual device
in one line naming the program's file:line; `--run-kernels` then runs the kernels in Triton's interpreter.
"""

from __future__ import annotations

import atexit
import inspect
import os
import sys
from typing import Any

from ttinspect.capture import counting, interpreter, interpreter_failures, launches
from ttinspect.capture.hook_errors import guarded, warn
from ttinspect.capture.launch_grid import GridRaised, evaluated_grid
from ttinspect.errors import cause_chain

ENV_AS = "TTINSPECT_CAPTURE_AS"  # the target's name, in a captured program's environment
ENV_DEVICE_PROPS = "TTINSPECT_CAPTURE_DEVICE_PROPS"  # --device-props of `capture --as`, as typed
ENV_RUN_KERNELS = "TTINSPECT_CAPTURE_RUN_KERNELS"  # "1": the kernels run in Triton's interpreter
ENV_VALUES = "TTINSPECT_CAPTURE_VALUES"  # "1": torch computes with values on the CPU; kernels recorded, not run
ALLOCATION_ALIGNMENT = 512  # bytes: every block CUDA's caching allocator (and torch's ROCm one) hands out

# Where host code reads values: --values gives it torch's, --run-kernels the kernels' too
VALUES_ADVICE = ("; host code that reads values torch computes is captured with --values (torch runs on the CPU, "
                 "kernels recorded); one that reads what its kernels compute, with --run-kernels (Triton's "
                 "interpreter runs them)")
_target: list[dict[str, Any]] = []  # [the target as compile records write it] while this process runs as it
_device_name: list[str] = []  # [the virtual device's name]


def begin_from_environment() -> None:
    """In a captured process: hold the target's virtual device for the whole run when the capture asks."""
    arch = os.environ.get(ENV_AS)
    if not arch or _target:
        return
    from ttinspect.targets.lookup import parse_arch  # only in a process captured --as (the tables are not small)
    from ttinspect.virtual import hold_for_process  # only in a process captured --as

    target = parse_arch(arch)
    numbers = hold_for_process(target.name, os.environ.get(ENV_DEVICE_PROPS) or None,  # KEY=VALUE lines
                               values_on_cpu=os.environ.get(ENV_RUN_KERNELS) == "1" or host_values())
    _device_name[:] = [str(numbers.values.get("name") or target.name)]
    said: list[str] = []  # the refusal that ended the program, once the hook has said it
    sys.excepthook = _refusal_in_one_line(sys.excepthook, target.name, said)
    atexit.register(_caught_refusals, target.name, said)
    _target.append({"backend": target.backend, "arch": target.name if target.amd is not None else target.capability,
                    "warp_size": target.warp_size})


def _caught_refusals(arch: str, said: list[str]) -> None:
    """At exit: the refusals the program caught itself (a test runner's tests, a library's try/except), in one
    line — they failed tests or skipped code paths, and the launches after them in each path were not made."""
    from ttinspect.virtual.refusal import refusals_made  # loaded with the device this process holds

    caught = [made for made in refusals_made() if made not in said]
    if not caught:
        return
    advice = VALUES_ADVICE if any(_values_would_answer(made) for made in caught) else ""
    first = " ".join(caught[0].split())
    print(f"ttinspect capture --as {arch}: the program caught {len(caught)} question(s) the virtual device could "
          f"not answer (the first: {first}); each stopped the code after it in its own path (a test that asks "
          f"fails), the launches made before it are recorded{advice}", file=sys.stderr)


def _refusal_in_one_line(previous: Any, arch: str, said: list[str]) -> Any:
    """A question the virtual device refused ended the program: one line naming the program's file:line and
    what to do, not a traceback through ttinspect's faces. A kernel that failed in Triton's interpreter
    (--run-kernels) is said in one line by the hook this one passes other errors to."""
    from ttinspect.virtual.refusal import VirtualDeviceError  # loaded with the device this process holds

    previous = interpreter_failures.excepthook(previous, arch)

    def refusal_in(error: Any) -> Any:
        """The refusal itself, or the one a library's own error wraps (torch.compile's, a pool's)."""
        return next((link for link in cause_chain(error) if isinstance(link, VirtualDeviceError)), None)

    def hook(kind: Any, error: Any, trace: Any) -> None:
        refusal = refusal_in(error)
        if refusal is None:
            previous(kind, error, trace)
            return
        said.append(str(refusal))
        line = " ".join(str(refusal).split())  # a library may have appended its own lines to the message
        advice = VALUES_ADVICE if _values_would_answer(line) else "" if "--run-kernels" in line else \
            " (docs/virtual-device.md: what the device answers)"
        print(f"ttinspect capture --as {arch}: {line}{advice}", file=sys.stderr)
    return hook


def _values_would_answer(refusal: str) -> bool:
    """A tensor's values read, or an op that needs them (nonzero, a data-dependent shape), refused where tensors
    hold none: --values or --run-kernels would answer it."""
    return ("no values" in refusal or "cannot run" in refusal) and os.environ.get(ENV_RUN_KERNELS) != "1"


def target() -> dict[str, Any] | None:
    """The target this process runs as ({"backend", "arch", "warp_size"}), or None."""
    return dict(_target[0]) if _target else None


def device_name() -> str | None:
    return _device_name[0] if _device_name else None


def host_values() -> bool:
    """`--values`: tensors on "cuda" are CPU tensors with the values torch computes; launches are recorded, and
    what they were given is unknown from then on (virtual/unknown_values.py)."""
    return os.environ.get(ENV_VALUES) == "1" and os.environ.get(ENV_RUN_KERNELS) != "1"


def recording_only() -> bool:
    """True when launches are recorded and not run: captured --as without --run-kernels."""
    return bool(_target) and os.environ.get(ENV_RUN_KERNELS) != "1"


def launch(session: Any, obj: Any, args: tuple, kwargs: dict, frame: Any) -> None:
    """A JIT launch (`kernel[grid](...)`, `kernel.run(..., grid=...)`) as the target makes it: its compile
    recorded, its grid evaluated, the launch counted — and nothing run. Returns what a launch that ran
    nothing has to give: None (no CompiledKernel exists)."""
    grid = kwargs.get("grid")
    given = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}
    if session is None:
        return None
    compile_id = guarded(record, session, obj, args, given)
    if compile_id is None:
        return None
    params = interpreter.params_of(obj)
    names = tuple(p.name for p in params)
    try:
        shape = evaluated_grid(obj, grid, args, given) if callable(grid) else grid
    except GridRaised as raised:  # the program's grid raised: the launch raises it, as the JIT's would
        raise raised.error from None
    except Exception as error:  # never into the user's program: the record goes without its grid
        warn(error)
        shape = None
    guarded(counting.launched, session, (compile_id, names, frozenset(p.name for p in params if p.is_constexpr)),
            obj, shape, args, given, frame)
    if recording_only():  # what the kernel would have written is unknown: each tensor it may write through holds it
        # (without --values no tensor holds values; marking says, when one is read, that only running it answers)
        from ttinspect.virtual import unknown_values  # loaded with the device this process holds

        name = getattr(getattr(obj, "fn", obj), "__name__", "a kernel")
        written = guarded(_written_by, obj, names, args, given)
        values, anywhere = ([*args, *given.values()], True) if written is None else written
        unknown_values.written_by_launch(_leaves(values), f"kernel {name} (launched at {launches.shown_site(frame)})",
                                         anywhere=anywhere)
    return None


def _written_by(obj: Any, names: tuple[str, ...], args: tuple, given: dict) -> tuple[list[Any], bool]:
    """The values of this launch the kernel may write through (kernel/written_params.py: read once per kernel
    from its source; every value where it cannot say, or where the arguments do not bind to its parameters),
    and whether it may write anywhere else too (through an address given as a number, a table of pointers)."""
    from ttinspect.kernel.written_params import may_write_anywhere, param_writes, written_values  # when recorded

    try:
        bound = inspect.signature(obj.fn).bind_partial(*args, **{k: v for k, v in given.items() if k in names})
    except (AttributeError, TypeError, ValueError):  # the interpreter's record refuses this launch already
        return [*args, *given.values()], True
    unbound = [value for key, value in given.items() if key not in bound.arguments]  # num_warps, ...
    writes = param_writes(obj, bound.arguments)
    return written_values(writes, dict(bound.arguments), unbound), may_write_anywhere(writes, bound.arguments)


def _leaves(values: Any) -> list[Any]:
    """Each value, and those a tuple or list given for one parameter holds (a tuple of tensors)."""
    found: list[Any] = []
    for value in values:
        found.extend(_leaves(value) if isinstance(value, (tuple, list)) else (value,))
    return found


def record(session: Any, obj: Any, args: tuple, kwargs: dict) -> str | None:
    """The compile record of this launch on the target (its id)."""
    placed = tuple(_placed(a) for a in args)
    return interpreter.record_compile(session, obj, placed, {k: _placed(v) for k, v in kwargs.items()},
                                      target=target())


class _Placed:
    """A tensor as the specializer reads it, where its address is the GPU allocation's (a tensor on the
    virtual device has none): the data pointer is its byte offset into an aligned allocation."""
    __slots__ = ("dtype", "offset")

    def __init__(self, dtype: Any, offset: int):
        self.dtype, self.offset = dtype, offset

    def data_ptr(self) -> int:
        return ALLOCATION_ALIGNMENT + self.offset


class _PlacedDescriptor:
    """A host tensor descriptor (TMA) whose base is a tensor on the virtual device."""
    __slots__ = ("base", "block_shape", "layout", "shape", "strides")

    def __init__(self, descriptor: Any, base: _Placed):
        self.base, self.block_shape = base, descriptor.block_shape
        self.layout = getattr(descriptor, "layout", None)
        self.shape, self.strides = getattr(descriptor, "shape", None), getattr(descriptor, "strides", None)


def _placed(value: Any) -> Any:
    """A tensor (or a descriptor over one) made readable by the specializer without its address."""
    if hasattr(value, "storage_offset") and hasattr(value, "element_size") and hasattr(value, "dtype"):
        return _Placed(value.dtype, int(value.storage_offset()) * int(value.element_size()))
    base = getattr(value, "base", None)
    if hasattr(value, "block_shape") and base is not None and hasattr(base, "storage_offset"):
        return _PlacedDescriptor(value, _placed(base))
    return value


def reset() -> None:
    """For tests: this process no longer runs as a target (the virtual device it holds stays)."""
    _target.clear()

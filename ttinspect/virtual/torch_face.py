"""torch's face of the virtual device: torch.cuda's device questions, torch.version.cuda / .hip and
torch.backends.cuda.is_built, answered for the active device; every other public function of torch.cuda
(streams, memory, synchronize, events, RNG state, ...) refuses in one line. Only called with torch already
imported: nothing here imports it."""

from __future__ import annotations

import functools
import sys
import types
from typing import Any, Callable

from ttinspect.virtual import accelerator_face, compile_eager, generators, nothing_runs, private_entries, state, streams
from ttinspect.virtual.indices import device_index
from ttinspect.virtual.numbers import DeviceNumbers
from ttinspect.virtual.refusal import refuse

Patch = Callable[[Any, str, Any], None]  # (object, attribute, new value): recorded, restored on exit

# Attributes of torch's _CudaDeviceProperties -> the number behind each (None: asked of the device itself).
_PROPERTY_KEYS = {
    "name": "name", "total_memory": "total_memory", "multi_processor_count": "multi_processor_count",
    "is_integrated": "is_integrated", "is_multi_gpu_board": "is_multi_gpu_board",
    "max_threads_per_multi_processor": "max_threads_per_multi_processor", "warp_size": "warp_size",
    "max_threads_per_block": "max_threads_per_block",
    "regs_per_multiprocessor": "regs_per_multiprocessor", "shared_memory_per_block": "shared_memory_per_block",
    "shared_memory_per_multiprocessor": "shared_memory_per_multiprocessor", "L2_cache_size": "L2_cache_size",
    "clock_rate": "clock_rate", "memory_clock_rate": "memory_clock_rate", "memory_bus_width": "memory_bus_width",
    "uuid": None, "pci_bus_id": None, "pci_device_id": None, "pci_domain_id": None,
}
# torch.cuda functions that change nothing a virtual device holds (no values, no streams): calls pass.
_NO_OPS = ("manual_seed", "manual_seed_all", "seed", "seed_all")


class VirtualDeviceProperties:
    """What torch.cuda.get_device_properties() returns on the device: the attributes torch's own object has
    (shared_memory_per_block_optin on NVIDIA only, as torch on ROCm), each read from the device's numbers."""

    def __init__(self, numbers: DeviceNumbers, index: int):
        object.__setattr__(self, "_numbers", numbers)
        object.__setattr__(self, "_asked", f"torch.cuda.get_device_properties({index})")

    def __getattr__(self, attr: str) -> Any:
        numbers: DeviceNumbers = object.__getattribute__(self, "_numbers")
        asked = f"{object.__getattribute__(self, '_asked')}.{attr}"
        if attr in ("major", "minor"):
            return numbers.capability[attr == "minor"]
        if attr == "gcnArchName":
            # on an NVIDIA GPU torch reports the device's name there (read on the H100: docs/virtual-device.md)
            return numbers.arch_name if numbers.amd else numbers.get("name", asked)
        if attr == "shared_memory_per_block_optin" and not numbers.amd:
            return numbers.get(attr, asked)
        if attr in _PROPERTY_KEYS:
            key = _PROPERTY_KEYS[attr]
            if key is None:
                raise refuse(asked, numbers.label, "cannot answer (it names one physical GPU)")
            return numbers.get(key, asked)
        raise AttributeError(f"'_CudaDeviceProperties' object has no attribute '{attr}'")

    def __setattr__(self, attr: str, value: Any) -> None:
        raise AttributeError(f"'_CudaDeviceProperties' attribute '{attr}' is read-only")

    def __repr__(self) -> str:
        numbers: DeviceNumbers = object.__getattribute__(self, "_numbers")
        major, minor = numbers.capability
        memory = numbers.values.get("total_memory")
        shown = f"{memory // (1024 * 1024)}MB" if memory else "unknown"
        l2 = numbers.values.get("L2_cache_size")
        return (f"_CudaDeviceProperties(name='{numbers.values['name']}', major={major}, minor={minor}, "
                f"total_memory={shown}, multi_processor_count={numbers.values['multi_processor_count']}, "
                f"L2_cache_size={f'{l2 // (1024 * 1024)}MB' if l2 else 'unknown'}) [virtual device]")


class TorchFace:
    """The answers, as functions installed on torch.cuda."""

    def __init__(self, torch: types.ModuleType):
        self.torch = torch

    def index(self, device: Any, asked: str) -> int:
        return device_index(device, asked)

    def answers(self) -> dict[str, Callable[..., Any]]:
        def is_available() -> bool:
            state.current()  # a question the code asked: outputs name the device that answered it
            return True

        def device_count() -> int:
            return state.current().get("device_count", "torch.cuda.device_count()")

        def current_device() -> int:
            state.current()  # as above
            state.initialize()  # torch initialises CUDA here (and wherever initialize() is called below)
            return state.selected()

        def set_device(device: Any) -> None:
            state.select(self.index(device, f"torch.cuda.set_device({device!r})"))
            state.initialize()

        def get_device_properties(device: Any = None) -> VirtualDeviceProperties:
            index = self.index(device, "torch.cuda.get_device_properties")
            state.initialize()
            return VirtualDeviceProperties(state.current(), index)

        def is_initialized() -> bool:
            state.current()  # as above
            return state.initialized()

        def is_current_stream_capturing() -> bool:
            state.current()  # as above: no CUDA graph is ever captured here (graphs are refused)
            return False

        def get_device_capability(device: Any = None) -> tuple[int, int]:
            self.index(device, "torch.cuda.get_device_capability")
            state.initialize()
            return state.current().capability

        def get_device_name(device: Any = None) -> str:
            return get_device_properties(device).name

        def is_bf16_supported(including_emulation: bool = True) -> bool:
            numbers = state.current()
            # torch: always on ROCm; on CUDA from 8.0, or emulated where a bf16 tensor can be made (any GPU)
            return numbers.amd or numbers.capability[0] >= 8 or including_emulation

        def is_tf32_supported() -> bool:
            numbers = state.current()
            if numbers.amd:  # torch: CDNA3 and CDNA4 only
                return numbers.arch_name.startswith(("gfx94", "gfx95"))
            return numbers.capability[0] >= 8

        def exchanging() -> Callable[[int], int]:
            # `with torch.cuda.device(i):` enters and leaves with these; one function per name (torch._dynamo
            # maps torch.cuda's functions by identity)
            def exchange_device(device: int) -> int:
                if device < 0:
                    return -1
                previous = state.selected()
                state.select(self.index(device, f"torch.cuda.device({device!r})"))
                state.initialize()
                return previous
            return exchange_device

        found: dict[str, Callable[..., Any]] = {"_exchange_device": exchanging(),
                                                "_maybe_exchange_device": exchanging()}
        found.update({f.__name__: f for f in (is_available, device_count, current_device, set_device,
                                          get_device_properties, get_device_capability, get_device_name,
                                          is_bf16_supported, is_tf32_supported, is_initialized,
                                          is_current_stream_capturing)})
        found.update({name: _no_op() for name in _NO_OPS})
        found.update({name: _initializing() for name in ("init", "_lazy_init")})
        return found


def _no_op() -> Callable[..., None]:
    """A new function each time: torch._dynamo maps torch.cuda's functions by identity, one name each."""
    def no_op(*args: Any, **kwargs: Any) -> None:
        return None
    return no_op


def _initializing() -> Callable[[], None]:
    """torch.cuda.init() / _lazy_init(): CUDA is initialised from now on (a new function per name, as above)."""
    def init() -> None:
        state.initialize()
    return init


def _refusing(qualname: str, original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise refuse(f"{qualname}()", state.current().label)
    return refused


def install(torch: types.ModuleType, patch: Patch) -> TorchFace:
    """Put the answers and refusals on torch.cuda (module attributes: torch's own helpers, which call them
    by module name, see them too), the toolkit version on torch.version."""
    face = TorchFace(torch)
    cuda = torch.cuda
    answers = face.answers()
    when_nothing_runs = nothing_runs.answers()
    originals = {name: getattr(cuda, name, None) for name in dir(cuda)}
    for name in dir(cuda):
        value = getattr(cuda, name, None)
        if not isinstance(value, types.FunctionType) or name.startswith("_") and name not in answers:
            continue
        if name in answers:
            patch(cuda, name, functools.wraps(value)(answers[name]))
        elif name in when_nothing_runs:
            patch(cuda, name, nothing_runs.answered_when_nothing_runs(f"torch.cuda.{name}", when_nothing_runs[name],
                                                                      value))
        elif getattr(value, "__module__", "").startswith("torch.cuda"):
            patch(cuda, name, _refusing(f"torch.cuda.{name}", value))
    for name, cls in nothing_runs.classes().items():  # made only when nothing runs (streams.py)
        for owner in (cuda, getattr(cuda, "streams", None)):
            if owner is not None and hasattr(owner, name):
                patch(owner, name, cls)
    _follow_bound_copies(torch, originals, patch)
    streams.use_torch(torch)
    private_entries.install(torch._C, patch)
    accelerator_face.install(torch, patch)
    compile_eager.install(torch, patch)
    generators.install(torch, patch)
    for name in ("cuda", "hip"):
        patch(torch.version, name, getattr(torch.version, name, None))  # recorded; set_versions sets them
    set_versions(torch)
    backends_cuda = getattr(getattr(torch, "backends", None), "cuda", None)
    if backends_cuda is not None and hasattr(backends_cuda, "is_built"):
        patch(backends_cuda, "is_built", lambda: True)
    return face


# Classes that keep torch.cuda's functions as staticmethods, bound when their module was imported: imported
# before the device was (a library that imports torch._dynamo, Helion, Inductor), they would still call the
# real torch.cuda. A class imported later binds the faces themselves.
_BOUND_COPIES = (("torch._dynamo.device_interface", "CudaInterface"),)


def _follow_bound_copies(torch: types.ModuleType, originals: dict, patch: Patch) -> None:
    for module_name, class_name in _BOUND_COPIES:
        cls = getattr(sys.modules.get(module_name), class_name, None)
        if cls is None:
            continue
        for name, value in list(vars(cls).items()):
            if isinstance(value, staticmethod) and originals.get(name) is value.__func__ \
                    and getattr(torch.cuda, name, None) is not value.__func__:
                patch(cls, name, staticmethod(getattr(torch.cuda, name)))


def set_versions(torch: types.ModuleType) -> None:
    """torch.version.cuda / .hip as a wheel for the active device's vendor has them (the other one None)."""
    numbers = state.active()
    torch.version.cuda = None if numbers.amd else numbers.values["cuda_version"]
    torch.version.hip = numbers.values["hip_version"] if numbers.amd else None

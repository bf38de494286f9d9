"""`torch.Generator(device="cuda")` on the virtual device (seeded test inputs: `torch.randn(..., device="cuda",
generator=g)`): a CPU build of torch has no CUDA generator and refuses to make one. Here it is a CPU generator —
seeded, its state kept and drawn from as torch draws on the CPU where values are kept (`--values`,
`--run-kernels`), ignored by the meta device where none are — that says it is on cuda:N. Any other device is
torch's own generator, and `isinstance(g, torch.Generator)` holds for both. Installed on the torch the code
imported; nothing here imports torch."""

from __future__ import annotations

import types
from typing import Any, Callable

from ttinspect.virtual import state
from ttinspect.virtual.indices import device_index

Patch = Callable[[Any, str, Any], None]


def generator_class(torch: types.ModuleType) -> type:
    base = torch._C.Generator

    class _IsAGenerator(type(base)):  # type: ignore[misc]
        def __instancecheck__(cls, obj: Any) -> bool:
            return isinstance(obj, base)  # torch's own generators (torch.default_generator) are ones too

        def __subclasscheck__(cls, sub: type) -> bool:
            return issubclass(sub, base)

    class Generator(base, metaclass=_IsAGenerator):  # type: ignore[misc, valid-type]
        """torch.Generator: on "cuda", a CPU generator that says it is on the virtual device."""

        def __new__(cls, device: Any = None, *args: Any, **kwargs: Any) -> Any:
            if device is None or not _is_cuda(torch, device):
                return base(*(() if device is None else (device,)), *args, **kwargs)
            made = base.__new__(cls, "cpu")
            made._cuda_index = device_index(device, f"torch.Generator(device={device!r})")
            state.initialize()  # torch initialises CUDA to make one
            return made

        @property
        def device(self) -> Any:
            return torch.device("cuda", self._cuda_index)

        def __repr__(self) -> str:
            return f"<torch.Generator device=cuda:{self._cuda_index}> [virtual device]"

    Generator.__module__, Generator.__qualname__ = "torch", "Generator"
    return Generator


def _is_cuda(torch: types.ModuleType, device: Any) -> bool:
    if isinstance(device, int):
        return True  # an index is a CUDA device's, as torch reads it
    if isinstance(device, str):
        return device.split(":")[0] == "cuda"
    return isinstance(device, torch.device) and device.type == "cuda"


def install(torch: types.ModuleType, patch: Patch) -> None:
    patch(torch, "Generator", generator_class(torch))

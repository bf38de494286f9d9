"""A stand-in for Triton's GPU driver, so that the JIT's own launch path runs on a machine without a GPU:
`JITFunction.run` specializes, compiles for the target (sm_90 unless told) and "launches" through a
launcher that does nothing. tests/test_capture_hooks.py and `scripts/capture_overhead.py --no-gpu` use it to
exercise the capture hooks on real Triton compiles and launches; nothing here runs a kernel."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator


class _Utils:
    def get_device_properties(self, device: Any) -> dict[str, int]:
        return {"max_shared_mem": 232448, "max_num_regs": 65536, "multiprocessor_count": 132, "warpSize": 32}

    def load_binary(self, name: str, kernel: bytes, shared: int, device: Any) -> tuple[int, ...]:
        import triton

        loaded = (1, 1, 32, 0, 1024)  # module, function, registers, spills, max threads per block (3.4 on)
        return loaded[:4] if triton.__version__.startswith("3.3.") else loaded

    def unload_module(self, module: Any) -> None:
        pass


class _Launcher:
    def __init__(self, src: Any, metadata: Any):
        pass

    def __call__(self, *args: Any) -> None:
        pass


class FakeDriver:
    def __init__(self, arch: int = 90):
        from triton.backends.compiler import GPUTarget

        self.target = GPUTarget("cuda", arch, 32)
        self.utils = _Utils()
        self.launcher_cls = _Launcher

    def get_current_device(self) -> int:
        return 0

    def get_current_stream(self, device: Any = None) -> int:
        return 0

    def get_current_target(self) -> Any:
        return self.target

    def get_active_torch_device(self) -> Any:
        import torch

        return torch.device("cpu")


@contextlib.contextmanager
def fake_gpu(arch: int = 90) -> Iterator[FakeDriver]:
    """Triton's active driver is the fake one inside the block; restored as it was after."""
    from triton.runtime import driver

    saved = dict(vars(driver))
    fake = FakeDriver(arch)
    driver.set_active(fake)
    try:
        yield fake
    finally:
        vars(driver).clear()
        vars(driver).update(saved)

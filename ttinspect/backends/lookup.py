"""`backend_for(target)`: the vendor backend of a target (like Triton's `make_backend(target)`) — the one
place that tells the vendors apart."""

from __future__ import annotations

from typing import Any

from ttinspect.backends.amd import AMD
from ttinspect.backends.base import Backend
from ttinspect.backends.nvidia import NVIDIA


def backend_for(target: Any) -> Backend:
    return AMD if getattr(target, "amd", None) is not None else NVIDIA

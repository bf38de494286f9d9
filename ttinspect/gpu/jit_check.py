"""Does ttinspect's offline compile give the JIT's PTX? Launch a variant for real and compare.

The JIT's PTX is read from a fresh Triton cache directory after a real launch through the variant's
launcher, so nothing private of Triton's is touched.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..engine import build
from ..errors import NoGPUError
from ..variants import resolve


@dataclass(frozen=True)
class PtxComparison:
    variant: str
    arch: str
    size: int
    offline_sha256: str
    jit_sha256: str

    @property
    def identical(self) -> bool:
        return self.offline_sha256 == self.jit_sha256


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def compare_with_jit(variant: str, size: int = 1024) -> PtxComparison:
    import torch

    if not torch.cuda.is_available():
        raise NoGPUError("comparing with the JIT needs a CUDA GPU; dump/report/diff work without one")
    resolved = resolve(variant, {"M": size, "N": size, "K": size})
    spec = resolved.variant
    offline = build(resolved, arch="native")
    kernel_name = spec.function
    previous = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="ttinspect-jit-") as cache_dir:
        os.environ["TRITON_CACHE_DIR"] = cache_dir
        try:
            a = torch.randn(size, size, device="cuda", dtype=torch.float16)
            b = torch.randn(size, size, device="cuda", dtype=torch.float16)
            config = {k: v for k, v in resolved.config.items()}
            spec.load_launcher()(a, b, **config)
            torch.cuda.synchronize()
            found = sorted(Path(cache_dir).rglob(f"{kernel_name}.ptx"))
        finally:
            if previous is None:
                os.environ.pop("TRITON_CACHE_DIR", None)
            else:
                os.environ["TRITON_CACHE_DIR"] = previous
        if len(found) != 1:
            raise RuntimeError(f"expected one {kernel_name}.ptx in the JIT's cache, found {len(found)}")
        jit_ptx = found[0].read_text()
    return PtxComparison(spec.name, offline.target.name, size, _sha(offline.artifacts.text("ptx")),
                         _sha(jit_ptx))

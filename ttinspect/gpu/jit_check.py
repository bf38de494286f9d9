"""Does ttinspect's offline compile give the JIT's PTX? Launch a variant for real and compare.

The JIT's PTX is read from a fresh Triton cache directory after a real launch through the variant's
launcher, so nothing private of Triton's is touched.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ttinspect.engine.builds import build
from ttinspect.errors import NoGPUError
from ttinspect.kernel.overrides import resolve


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


_LAUNCH = """
import sys, torch
from ttinspect.kernel.overrides import resolve
resolved = resolve(sys.argv[1], {"M": int(sys.argv[2]), "N": int(sys.argv[2]), "K": int(sys.argv[2])})
a = torch.randn(int(sys.argv[2]), int(sys.argv[2]), device="cuda", dtype=torch.float16)
b = torch.randn(int(sys.argv[2]), int(sys.argv[2]), device="cuda", dtype=torch.float16)
resolved.variant.load_launcher()(a, b, **resolved.config)
torch.cuda.synchronize()
"""


def compare_with_jit(variant: str, size: int = 1024) -> PtxComparison:
    """Compile offline for the local GPU, launch the same variant for real in a fresh process (so the
    JIT's in-memory cache cannot answer instead of a compile) and compare the two PTX files."""
    import torch

    if not torch.cuda.is_available():
        raise NoGPUError("comparing with the JIT needs a CUDA GPU; dump/report/diff work without one")
    resolved = resolve(variant, {"M": size, "N": size, "K": size})
    spec = resolved.variant
    offline = build(resolved, arch="native")
    with tempfile.TemporaryDirectory(prefix="ttinspect-jit-") as cache_dir:
        env = {**os.environ, "TRITON_CACHE_DIR": cache_dir}
        subprocess.run([sys.executable, "-c", _LAUNCH, spec.name, str(size)], env=env, check=True)
        found = sorted(Path(cache_dir).rglob(f"{spec.function}.ptx"))
        if len(found) != 1:
            raise RuntimeError(f"expected one {spec.function}.ptx in the JIT's cache, found {len(found)}")
        jit_ptx = found[0].read_text()
    return PtxComparison(spec.name, offline.target.name, size, _sha(offline.artifacts.text("ptx")),
                         _sha(jit_ptx))


_LAUNCH_ANY = """
import json, sys, torch
from ttinspect.kernel.overrides import resolve
from ttinspect.gpu.inputs import example_inputs
resolved = resolve(sys.argv[1], json.loads(sys.argv[2]))
resolved.variant.load_launcher()(*example_inputs(resolved), **resolved.config)
torch.cuda.synchronize()
"""


def jit_stages(variant: str, overrides: dict | None = None) -> dict[str, str]:
    """Launch any variant for real (its launcher, random inputs) in a fresh process with an empty Triton
    cache, and return the stages the JIT wrote there: {"ttir": ..., "ttgir": ..., "ptx": ...}."""
    import json

    import torch

    if not torch.cuda.is_available():
        raise NoGPUError("launching through the JIT needs a CUDA GPU")
    function = resolve(variant, overrides or {}).variant.function
    with tempfile.TemporaryDirectory(prefix="ttinspect-jit-") as cache_dir:
        env = {**os.environ, "TRITON_CACHE_DIR": cache_dir}
        subprocess.run([sys.executable, "-c", _LAUNCH_ANY, variant, json.dumps(overrides or {})], env=env,
                       check=True)
        out = {}
        for stage in ("ttir", "ttgir", "ptx"):
            found = sorted(Path(cache_dir).rglob(f"{function}.{stage}"))
            if len(found) != 1:
                raise RuntimeError(f"expected one {function}.{stage} in the JIT's cache, found {len(found)}")
            out[stage] = found[0].read_text()
    return out

"""Do the offline register / spill figures equal what the GPU reports at launch?

Each variant is launched for real through its launcher; Triton's JIT loads the cubin and reads
`n_regs` (CU_FUNC_ATTRIBUTE_NUM_REGS) and `n_spills` (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES / 4) from the
driver. Those are compared with ttinspect's offline facts for `--arch native`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ttinspect.report.collect import report_from_build
from ttinspect.engine.builds import build
from ttinspect.refs.reference import parse_ref


@dataclass(frozen=True)
class ResourceComparison:
    variant: str
    arch: str
    gpu_n_regs: int
    gpu_n_spills: int
    offline_registers: int | None
    offline_spills: int | None
    offline_stack: int | None
    offline_local: int | None

    @property
    def agrees(self) -> bool:
        return (self.gpu_n_regs, self.gpu_n_spills) == (self.offline_registers, self.offline_spills)


def _jit_kernel(fn):
    """The CompiledKernel the JIT just built and loaded (the only one in this process for fn)."""
    kernels = [k for cache in fn.device_caches.values() for k in cache[0].values()]
    if len(kernels) != 1:
        raise RuntimeError(f"expected one compiled {fn.__name__} in this process, found {len(kernels)}")
    kernel = kernels[0]
    if hasattr(kernel, "_init_handles"):
        kernel._init_handles()
    return kernel


def compare_resources(variant: str) -> ResourceComparison:
    """`variant` is a shipped variant with optional overrides (`tileon:num_warps=8`)."""
    import torch

    from ttinspect.gpu.inputs import example_inputs  # after torch, which it needs

    resolved = parse_ref(variant).resolved
    offline = report_from_build(build(resolved, arch="native"))
    launcher = resolved.variant.load_launcher()
    launcher(*example_inputs(resolved), **resolved.config)
    torch.cuda.synchronize()
    kernel = _jit_kernel(resolved.variant.load_kernel())
    return ResourceComparison(resolved.label(), offline.target, kernel.n_regs, kernel.n_spills,
                              offline["registers"], offline["spills"], offline["stack"], offline["local_bytes"])


def compare_in_fresh_process(variant: str) -> ResourceComparison:
    """compare_resources in a new interpreter, so no earlier launch of the same kernel is in the
    JIT's cache."""
    import dataclasses
    import json
    import subprocess
    import sys

    code = ("import dataclasses, json, sys; from ttinspect.gpu.resources_check import compare_resources; "
            "print(json.dumps(dataclasses.asdict(compare_resources(sys.argv[1]))))")
    done = subprocess.run([sys.executable, "-c", code, variant], capture_output=True, text=True, check=True)
    fields = {f.name for f in dataclasses.fields(ResourceComparison)}
    return ResourceComparison(**{k: v for k, v in json.loads(done.stdout.splitlines()[-1]).items() if k in fields})

"""What differs when Triton compiles for an AMD GPU (its HIP backend): the GPUTarget, the compile options
it takes, and whether the installed release can emit code for AMD at all. Imported by compile/ only.

Measured (scripts/amd_targets_probe.py, docs/amd.md): Triton 3.6 and 3.9 carry the AMD backend *and*
the LLVM linker it needs in the wheel, so they compile gfx90a ... gfx1201 on a CPU-only machine; Triton
3.3 has the backend but links with ROCm's own `ld.lld`, which its wheel does not ship.
"""

from __future__ import annotations

from triton.backends.compiler import GPUTarget

from ttinspect.errors import UsageError
from ttinspect.targets.nvidia import Target
from ttinspect.targets.lookup import parse_amd


def gpu_target(target: Target) -> GPUTarget:
    """The GPUTarget a launch on this GPU would compile for: ("hip", "gfx942", 64) or ("cuda", 90, 32)."""
    if target.amd is not None:
        return GPUTarget("hip", target.name, target.warp_size)
    return GPUTarget("cuda", target.capability, target.warp_size)


def hip_option_names() -> frozenset[str]:
    """The options the HIP backend accepts (waves_per_eu, matrix_instr_nonkdim, kpack, ...); empty
    without the backend."""
    try:
        from triton.backends.amd.compiler import HIPOptions
    except ImportError:
        return frozenset()
    return frozenset(HIPOptions.__dataclass_fields__)


def check_backend(target: Target, version: tuple[int, int], triton_version: str) -> None:
    """One line instead of Triton's own failure deep in its linker step."""
    if target.amd is None:
        return
    try:
        import triton.backends.amd.compiler as hip
    except ImportError as exc:
        raise UsageError(f"{target.name}: the installed Triton {triton_version} has no AMD (HIP) backend") from exc
    finder = getattr(hip, "path_to_rocm_lld", None)
    if finder is None:
        return
    try:
        finder()
    except Exception as exc:  # Triton raises a bare Exception naming /opt/rocm/llvm/bin/ld.lld
        raise UsageError(f"{target.name}: Triton {triton_version} links AMD code with ROCm's ld.lld, which it does "
                         "not ship and which is not installed here (set TRITON_HIP_LLD_PATH); Triton >= 3.6 "
                         "bundles it") from exc


def native_amd_target(arch: str) -> Target:
    """`--arch native` on a ROCm machine: the device's gfx name (Triton reports e.g. "gfx942:sramecc+")."""
    return parse_amd(arch.split(":")[0])

"""NVIDIA targets: "sm_90" <-> compute capability, and the per-architecture limits that decide whether a
compiled kernel can launch at all (shared memory) and its occupancy.

Limits are from the CUDA C++ Programming Guide's "Technical Specifications per Compute Capability" table
and the CUDA Occupancy Calculator (allocation units, the 1 KB the runtime reserves per block from cc 8.0
on); docs/resources.md cites them. Shared memory per block is the opt-in maximum a kernel may request with
dynamic shared memory — the number Triton compares `metadata.shared` against when it loads a kernel.
Which targets the installed Triton can compile for is measured per release: versions.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


DEFAULT_ARCH = "sm_89"  # doc 003's GPU, an RTX 4090


@dataclass(frozen=True)
class AmdLimits:
    """An AMD GPU's per-CU limits (targets_amd.py cites where each comes from)."""

    family: str  # "CDNA3", "RDNA3"
    matrix_core: str  # the matrix instructions Triton's tl.dot uses there: "mfma" or "wmma"
    lds_per_workgroup: int  # bytes
    lds_per_cu: int  # bytes
    vgprs_per_simd: int  # per lane: the register file one SIMD shares among its waves
    vgpr_granule: int  # registers are allocated per wave in units of this many
    max_waves_per_simd: int
    simds_per_cu: int
    max_workgroups_per_cu: int
    unified_agprs: bool  # CDNA2+: AGPRs share the VGPR file (allocated after the VGPRs, 4-aligned)


@dataclass(frozen=True)
class Target:
    name: str  # "sm_90", "gfx942"
    capability: int  # 90; 0 for an AMD target (no CUDA compute capability)
    gpu_examples: str
    max_shared_per_block: int  # bytes, opt-in maximum
    shared_per_sm: int  # bytes
    registers_per_sm: int
    max_registers_per_thread: int
    max_warps_per_sm: int
    max_blocks_per_sm: int
    warp_size: int = 32
    shared_reserved_per_block: int = 1024  # the CUDA runtime's reservation per block (cc >= 8.0)
    shared_alloc_unit: int = 128  # bytes; 256 before cc 8.0
    amd: AmdLimits | None = None  # set for an AMD target (backend "hip")

    @property
    def backend(self) -> str:
        """Triton's name for the vendor: "cuda" or "hip"."""
        return "hip" if self.amd is not None else "cuda"

    def header(self) -> str:
        if self.amd is not None:
            return f"{self.name} (hip:{self.name}, {self.amd.family}, {self.gpu_examples})"
        return f"{self.name} (cuda:{self.capability}, {self.gpu_examples})"


_VOLTA_TURING: dict[str, Any] = {"shared_reserved_per_block": 0, "shared_alloc_unit": 256}

TARGETS: dict[str, Target] = {t.name: t for t in (
    Target("sm_70", 70, "V100", 98304, 98304, 65536, 255, 64, 32, **_VOLTA_TURING),
    Target("sm_72", 72, "Jetson AGX Xavier", 98304, 98304, 65536, 255, 64, 32, **_VOLTA_TURING),
    Target("sm_75", 75, "T4, RTX 20xx", 65536, 65536, 65536, 255, 32, 16, **_VOLTA_TURING),
    Target("sm_80", 80, "A100", 166912, 167936, 65536, 255, 64, 32),
    Target("sm_86", 86, "RTX 30xx, A10", 101376, 102400, 65536, 255, 48, 16),
    Target("sm_87", 87, "Jetson AGX Orin", 166912, 167936, 65536, 255, 48, 16),
    Target("sm_89", 89, "RTX 40xx, L4, L40", 101376, 102400, 65536, 255, 48, 24),
    Target("sm_90", 90, "H100, H200", 232448, 233472, 65536, 255, 64, 32),
    Target("sm_100", 100, "B200, GB200", 232448, 233472, 65536, 255, 64, 32),
    Target("sm_103", 103, "B300, GB300", 232448, 233472, 65536, 255, 64, 32),
    Target("sm_120", 120, "RTX 50xx, RTX PRO 6000", 101376, 102400, 65536, 255, 48, 32),
    Target("sm_121", 121, "DGX Spark (GB10)", 101376, 102400, 65536, 255, 48, 32),
)}

"""AMD targets (Instinct CDNA, Radeon RDNA): names and per-CU limits, as pure data (no triton import).

Every limit is from AMD's own documents or from LLVM's AMDGPU backend (the compiler Triton uses), cited in
docs/resources.md:
- LDS: 64 KiB per workgroup and per CU on gfx90a/gfx942 and RDNA, 160 KiB on gfx950 (LLVM
  AMDGPUBaseInfo `getAddressableLocalMemorySize`; the CDNA3/CDNA4 ISA guides' LDS chapter).
- VGPRs: gfx90a and later CDNA have one 512-entry-per-lane file shared by ArchVGPRs and AccVGPRs (AGPRs
  are placed after the ArchVGPRs, at the 4-aligned `AccumOffset`), allocated in units of 8; RDNA3/4's
  big register file (gfx1100/gfx1101/gfx1200/gfx1201) is 1536 per lane in wave32, units of 24 (LLVM
  `getTotalNumVGPRs`, `getVGPRAllocGranule`; AMDGPUUsage "Memory Model / Register").
- Waves: 8 per SIMD on CDNA2+ (AccVGPRs), 16 on gfx10.3 and later RDNA (LLVM `getMaxWavesPerEU`); 4
  SIMDs per CU (per WGP in Triton's default WGP mode on RDNA).
- Warp size as Triton uses it: 64 on CDNA, 32 on RDNA (Triton's HIP backend, `warp_size`).
"""

from __future__ import annotations

from ttinspect.targets.nvidia import AmdLimits, Target

_KIB = 1024


def _cdna(family: str, lds: int) -> AmdLimits:
    return AmdLimits(family, "mfma", lds, lds, 512, 8, 8, 4, 16, True)


def _rdna(family: str) -> AmdLimits:
    return AmdLimits(family, "wmma", 64 * _KIB, 64 * _KIB, 1536, 24, 16, 4, 32, False)


def _amd(name: str, gpus: str, limits: AmdLimits, warp: int) -> Target:
    waves = limits.max_waves_per_simd * limits.simds_per_cu
    # NVIDIA-shaped fields, read by code that is vendor-neutral: "shared" = LDS, "SM" = CU, "warps" = waves.
    return Target(name, 0, gpus, limits.lds_per_workgroup, limits.lds_per_cu, limits.vgprs_per_simd,
                  512 if limits.unified_agprs else 256,
                  waves, limits.max_workgroups_per_cu, warp, 0, 1, amd=limits)


AMD_TARGETS: dict[str, Target] = {t.name: t for t in (
    _amd("gfx90a", "MI210, MI250, MI250X", _cdna("CDNA2", 64 * _KIB), 64),
    _amd("gfx942", "MI300X, MI300A, MI325X", _cdna("CDNA3", 64 * _KIB), 64),
    _amd("gfx950", "MI350X, MI355X", _cdna("CDNA4", 160 * _KIB), 64),
    _amd("gfx1100", "RX 7900 XTX, Radeon PRO W7900", _rdna("RDNA3"), 32),
    _amd("gfx1101", "RX 7800 XT, Radeon PRO W7700", _rdna("RDNA3"), 32),
    _amd("gfx1200", "RX 9060 XT", _rdna("RDNA4"), 32),
    _amd("gfx1201", "RX 9070 XT, Radeon AI PRO R9700", _rdna("RDNA4"), 32),
)}

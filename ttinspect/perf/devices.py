"""The GPUs a prediction can be made for: datasheet figures, one row per device, each cited.

Throughputs are **dense** (no 2:4 sparsity) peaks at the boost clock, in TFLOP/s; a dtype the device's
matrix units do not take is absent (a prediction for it says so). `l2_bandwidth` is not published by either
vendor: the figures are measurements others published or, where marked, an assumption (the L2 term of the
model uses it; docs/predict.md says how much the ranking depends on it — little). Names are read loosely:
"H100 SXM", "h100-sxm", "H100_SXM5", "mi300x" all find their row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from ttinspect.errors import UsageError

_KIB, _MIB = 1024, 1024 * 1024


@dataclass(frozen=True)
class Device:
    name: str  # "H100 SXM"
    vendor: str  # "nvidia" | "amd"
    arch: str  # the target it runs: "sm_90", "gfx942"
    sms: int  # SMs (NVIDIA) or CUs (AMD)
    boost_mhz: int
    # dense matrix-unit peak per input dtype ("fp16", "bf16", "fp8", "tf32", "int8": TOP/s) + "fp32" (FMA)
    tflops: Mapping[str, float]
    hbm_gbps: float  # DRAM bandwidth, GB/s
    l2_bytes: int  # the last-level cache a kernel's tiles share (L2; AMD: Infinity Cache where it has one)
    l2_gbps: float  # L2 bandwidth (see the module docstring)
    l2_gbps_assumed: bool  # True: no published measurement, a ratio to DRAM assumed
    smem_per_sm: int  # bytes of shared memory (LDS) per SM / CU
    regs_per_sm: int  # 32-bit registers per SM (NVIDIA) / VGPR bytes per CU / 4 (AMD)
    source: str  # where the row's figures come from
    aliases: tuple[str, ...] = field(default=())

    @property
    def smem_bytes_per_clock(self) -> int:
        """Shared-memory bandwidth per SM: 128 B/clock on every NVIDIA SM since Volta (32 banks × 4 B);
        CDNA's LDS also serves 128 B/clock per CU."""
        return 128


def _t(fp16: float, fp8: float | None, tf32: float | None, fp32: float, int8: float | None) -> Mapping[str, float]:
    """A row's peaks; `int8`: the integer matrix path's dense TOP/s (an i8 × i8 → i32 dot: torchao's int8
    matmuls), from the same datasheet."""
    table = {"fp16": fp16, "bf16": fp16, "fp32": fp32}
    for key, value in (("fp8", fp8), ("tf32", tf32), ("int8", int8)):
        if value is not None:
            table[key] = value
    return MappingProxyType(table)


# INT8 (the fifth peak): each row's source, its "INT8 Tensor Core" (NVIDIA) or "INT8" (AMD) dense figure —
# the same as FP8 on Hopper, CDNA 3 and 4, and Blackwell; A100 624 TOP/s; Ada's 4090 660.6, the L40S 733.
DEVICES: tuple[Device, ...] = (
    # NVIDIA H100 datasheet (nvidia.com/en-us/data-center/h100, "H100 SXM" column; dense = half the
    # sparsity figures); SMs and boost clock: the Hopper whitepaper table 2. L2 bandwidth: assumed 10 TB/s —
    # Chips and Cheese measured ~5.5 TB/s on an H100 PCIe with one access pattern, but a 128x256x64 matmul
    # that reaches 0.94x cuBLAS (docs/h100.md) pulls 8.4 TB/s from L2, so the sustainable figure is higher.
    Device("H100 SXM", "nvidia", "sm_90", 132, 1980, _t(989.4, 1978.9, 494.7, 66.9, 1978.9), 3350, 50 * _MIB, 10000,
           True, 228 * _KIB, 65536, "NVIDIA H100 datasheet; Hopper whitepaper", ("h100", "h100 sxm5")),
    # The same datasheet, "H100 PCIe" column (114 SMs, 1755 MHz, HBM2e 2.0 TB/s); L2 bandwidth: the SXM's
    # figure scaled by SMs × clock (assumed).
    Device("H100 PCIe", "nvidia", "sm_90", 114, 1755, _t(756.0, 1513.0, 378.0, 51.2, 1513.0), 2000, 50 * _MIB, 8600,
           True, 228 * _KIB, 65536, "NVIDIA H100 datasheet, PCIe column"),
    # NVIDIA H200 datasheet (nvidia.com/en-us/data-center/h200): H100's SMs and peaks, HBM3e 4.8 TB/s.
    Device("H200", "nvidia", "sm_90", 132, 1980, _t(989.4, 1978.9, 494.7, 66.9, 1978.9), 4800, 50 * _MIB, 10000, True,
           228 * _KIB, 65536, "NVIDIA H200 datasheet (H200 SXM)", ("h200 sxm",)),
    # NVIDIA H20 product brief (2023): 78 SMs, FP16 148 / FP8 296 / TF32 74 TFLOP/s dense, 4.0 TB/s, 60 MB L2.
    Device("H20", "nvidia", "sm_90", 78, 1980, _t(148.0, 296.0, 74.0, 44.0, 296.0), 4000, 60 * _MIB, 4000, True,
           228 * _KIB, 65536, "NVIDIA H20 product brief"),
    # NVIDIA A100 datasheet (80 GB SXM column): 108 SMs at 1410 MHz, 312 FP16 / 156 TF32 / 19.5 FP32, 2039 GB/s;
    # L2 40 MB, 164 KB shared memory per SM (Ampere whitepaper). L2 bandwidth: 2.3× DRAM assumed.
    Device("A100 SXM", "nvidia", "sm_80", 108, 1410, _t(312.0, None, 156.0, 19.5, 624.0), 2039, 40 * _MIB, 4700, True,
           164 * _KIB, 65536, "NVIDIA A100 datasheet (80GB SXM); Ampere whitepaper", ("a100",)),
    Device("A100 PCIe", "nvidia", "sm_80", 108, 1410, _t(312.0, None, 156.0, 19.5, 624.0), 1935, 40 * _MIB, 4500, True,
           164 * _KIB, 65536, "NVIDIA A100 datasheet (80GB PCIe)"),
    # NVIDIA L40S datasheet: 142 SMs, 2520 MHz, FP16 362 / FP8 733 / TF32 183 dense, FP32 91.6, GDDR6 864 GB/s,
    # 96 MB L2; 100 KB shared memory per SM (Ada tuning guide). L2 bandwidth: 3× DRAM assumed.
    Device("L40S", "nvidia", "sm_89", 142, 2520, _t(362.0, 733.0, 183.0, 91.6, 733.0), 864, 96 * _MIB, 2600, True,
           100 * _KIB, 65536, "NVIDIA L40S datasheet; Ada tuning guide"),
    # NVIDIA Ada whitepaper, appendix A (GeForce RTX 4090): 128 SMs, 2520 MHz, FP16 with FP32 accumulate
    # 165.2 dense (GeForce halves it against FP16 accumulate), FP8 with FP32 accumulate 330.3, TF32 82.6,
    # FP32 82.6, GDDR6X 1008 GB/s, 72 MB L2. L2 bandwidth ~5 TB/s: Chips and Cheese's Ada measurement.
    Device("RTX 4090", "nvidia", "sm_89", 128, 2520, _t(165.2, 330.3, 82.6, 82.6, 660.6), 1008, 72 * _MIB, 5000, False,
           100 * _KIB, 65536, "NVIDIA Ada Lovelace whitepaper, appendix A", ("geforce rtx 4090", "4090")),
    # NVIDIA DGX B200 / HGX B200 datasheet, per GPU: FP16 2.25 / FP8 4.5 PFLOP/s dense, TF32 1.1, FP32 75,
    # HBM3e 8 TB/s; 148 SMs (Blackwell whitepaper); L2 126 MB; L2 bandwidth 2× DRAM assumed.
    Device("B200", "nvidia", "sm_100", 148, 1965, _t(2250.0, 4500.0, 1100.0, 75.0, 4500.0),
           8000, 126 * _MIB, 16000, True,
           228 * _KIB, 65536, "NVIDIA HGX B200 datasheet; Blackwell whitepaper"),
    # AMD Instinct MI300X data sheet: 304 CUs at 2100 MHz, FP16/BF16 1307.4 / FP8 2614.9 / TF32 653.7 dense,
    # FP32 163.4, HBM3 5.3 TB/s, 256 MB Infinity Cache (the cache every XCD shares; L2 is 4 MB per XCD),
    # 64 KB LDS and 512 KB VGPRs per CU. Infinity Cache bandwidth 17.2 TB/s (AMD CDNA 3 whitepaper).
    Device("MI300X", "amd", "gfx942", 304, 2100, _t(1307.4, 2614.9, 653.7, 163.4, 2614.9),
           5300, 256 * _MIB, 17200, False,
           64 * _KIB, 131072, "AMD Instinct MI300X data sheet; CDNA 3 whitepaper", ("instinct mi300x",)),
    # AMD Instinct MI325X data sheet: MI300X's compute, HBM3E 6.0 TB/s.
    Device("MI325X", "amd", "gfx942", 304, 2100, _t(1307.4, 2614.9, 653.7, 163.4, 2614.9),
           6000, 256 * _MIB, 17200, False,
           64 * _KIB, 131072, "AMD Instinct MI325X data sheet"),
    # AMD Instinct MI355X data sheet: 256 CUs at 2400 MHz, FP16 2516.6 / FP8 5033.2 dense, FP32 157.3, HBM3E
    # 8 TB/s, 256 MB Infinity Cache, 160 KB LDS per CU; its matrix cores take no TF32 (CDNA 4).
    Device("MI355X", "amd", "gfx950", 256, 2400, _t(2516.6, 5033.2, None, 157.3, 5033.2), 8000, 256 * _MIB, 17200, True,
           160 * _KIB, 131072, "AMD Instinct MI355X data sheet; CDNA 4 whitepaper"),
)

# The device a prediction uses when none is named: the GPU each target is best known by. sm_89: the RTX
# 4090 (doc 003 measured on one) rather than the L40S; sm_90: the H100 SXM (the common Hopper part).
DEFAULT_FOR_TARGET: Mapping[str, str] = MappingProxyType({
    "sm_80": "A100 SXM", "sm_89": "RTX 4090", "sm_90": "H100 SXM", "sm_90a": "H100 SXM", "sm_100": "B200",
    "sm_100a": "B200", "gfx942": "MI300X", "gfx950": "MI355X",
})


def _key(name: str) -> str:
    """Loose spelling: case, spaces, dashes and underscores do not matter; "nvidia"/"amd"/"instinct" dropped."""
    text = re.sub(r"[\s_\-]+", " ", name.strip().lower())
    text = re.sub(r"^(nvidia|amd)\s+", "", text)
    return text.replace(" ", "")


_BY_KEY = {_key(alias): d for d in DEVICES for alias in (d.name, *d.aliases)}


def device_names() -> tuple[str, ...]:
    return tuple(d.name for d in DEVICES)


def find_device(name: str) -> Device:
    """The row a loosely written name means, or one line listing the names there are."""
    found = _BY_KEY.get(_key(name))
    if found is None:
        raise UsageError(f"unknown device {name!r}; known: {', '.join(device_names())}")
    return found


def target_of(arch: str | None, device: str | None, profile: Any = None) -> str | None:
    """The target to compile for: `arch` as given; else the named GPU's (`h200`: sm_90, a misspelt name refused
    in one line); else the GPU a measured profile (perf/profile.py) was taken on; else None (the default)."""
    if arch is not None:
        return arch
    return find_device(device).arch if device is not None else getattr(profile, "arch", None)


def device_for(arch: str, name: str | None = None) -> Device:
    """The named device (checked against the target), else the target's default."""
    if name is not None:
        device = find_device(name)
        base = arch[:-1] if arch.endswith("a") and arch.startswith("sm_") else arch
        if device.arch != base:
            raise UsageError(f"device {device.name} runs {device.arch}, not {arch}: compile for {device.arch} "
                             f"(--arch {device.arch}) or name a {arch} device")
        return device
    default = DEFAULT_FOR_TARGET.get(arch)
    if default is None:
        raise UsageError(f"no default device for {arch}: name one with --device "
                         f"({', '.join(device_names())})")
    return find_device(default)

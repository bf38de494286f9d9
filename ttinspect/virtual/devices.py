"""The named GPU that stands for each target, with the numbers the target tables do not hold.

A target's limits (shared memory per block, registers, warps per SM, warp size) stay in targets/nvidia.py and
targets/amd.py; this table adds only what makes one real device of that target: its name as the driver reports
it, its SM count (CUs on CDNA; on RDNA, HIP reports workgroup processors, two CUs each), its L2, its memory and
clocks. docs/resources.md ("The virtual device's GPUs") cites the source of every number. A number with no
source is None: the virtual device refuses a question about it, naming `--device-props`, rather than guess.
"""

from __future__ import annotations

from dataclasses import dataclass

_KIB = 1024
_MIB = 1024 * _KIB
_GIB = 1024 * _MIB


@dataclass(frozen=True)
class DeviceSpec:
    """One real GPU, as its driver reports it (cudaDeviceProp / hipDeviceProp_t)."""

    target: str  # "sm_90", "gfx942"
    name: str  # torch.cuda.get_device_name(): cudaDeviceProp.name / hipDeviceProp_t.name
    multiprocessors: int | None  # multiProcessorCount: SMs; CUs on CDNA; WGPs (2 CUs) on RDNA
    l2_bytes: int | None  # l2CacheSize
    memory_bytes: int | None  # totalGlobalMem
    clock_khz: int | None = None  # clockRate: the boost clock, in kHz
    memory_clock_khz: int | None = None  # memoryClockRate, kHz
    memory_bus_bits: int | None = None  # memoryBusWidth
    integrated: bool = False  # a Jetson / GB10: memory shared with the CPU
    measured: bool = False  # every number read from the device itself (docs/resources.md), not a datasheet


DEVICES: dict[str, DeviceSpec] = {d.target: d for d in (
    # NVIDIA: the architecture whitepapers and datasheets (SMs, L2, memory, boost clock, bus width).
    DeviceSpec("sm_70", "Tesla V100-SXM2-32GB", 80, 6144 * _KIB, 32 * _GIB, 1530000, None, 4096),
    DeviceSpec("sm_72", "Xavier", 8, 512 * _KIB, 32 * _GIB, None, None, 256, integrated=True),
    DeviceSpec("sm_75", "Tesla T4", 40, 4096 * _KIB, 16 * _GIB, 1590000, None, 256),
    DeviceSpec("sm_80", "NVIDIA A100-SXM4-80GB", 108, 40960 * _KIB, 80 * _GIB, 1410000, None, 5120),
    DeviceSpec("sm_86", "NVIDIA GeForce RTX 3090", 82, 6144 * _KIB, 24 * _GIB, 1695000, None, 384),
    DeviceSpec("sm_87", "Orin", 16, 4096 * _KIB, 64 * _GIB, None, None, 256, integrated=True),
    DeviceSpec("sm_89", "NVIDIA GeForce RTX 4090", 128, 73728 * _KIB, 24 * _GIB, 2520000, None, 384),
    DeviceSpec("sm_90", "NVIDIA H100 80GB HBM3", 132, 50 * _MIB, 85017493504, 1980000, 2619000, 5120,
               measured=True),
    DeviceSpec("sm_100", "NVIDIA B200", 148, None, 180 * _GIB, None, None, 8192),
    DeviceSpec("sm_103", "NVIDIA B300 SXM6 AC", 148, None, 288 * _GIB, None, None, 8192),
    DeviceSpec("sm_120", "NVIDIA GeForce RTX 5090", 170, 98304 * _KIB, 32 * _GIB, 2407000, None, 512),
    DeviceSpec("sm_121", "NVIDIA GB10", 48, None, 128 * _GIB, None, None, 256, integrated=True),
    # AMD: ROCm's "GPU hardware specifications" table (CUs, L2 per XCD / GCD, memory, peak clock).
    DeviceSpec("gfx90a", "AMD Instinct MI250X/MI250", 110, 8 * _MIB, 64 * _GIB, 1700000, None, 4096),
    DeviceSpec("gfx942", "AMD Instinct MI300X", 304, 4 * _MIB, 192 * _GIB, 2100000, None, 8192),
    DeviceSpec("gfx950", "AMD Instinct MI355X", 256, 4 * _MIB, 288 * _GIB, 2400000, None, 8192),
    DeviceSpec("gfx1100", "AMD Radeon RX 7900 XTX", 48, 6 * _MIB, 24 * _GIB, 2500000, None, 384),
    DeviceSpec("gfx1101", "AMD Radeon RX 7800 XT", 30, 4 * _MIB, 16 * _GIB, 2430000, None, 256),
    DeviceSpec("gfx1200", "AMD Radeon RX 9060 XT", 16, 4 * _MIB, 16 * _GIB, 3130000, None, 128),
    DeviceSpec("gfx1201", "AMD Radeon RX 9070 XT", 32, 8 * _MIB, 16 * _GIB, 2970000, None, 256),
)}

# The toolkit a wheel of torch for this target is built with: torch.version.cuda / torch.version.hip. The
# oldest CUDA (ROCm) release whose compiler knows the target, or 12.8 (6.4) where older ones all do.
CUDA_VERSIONS = {"sm_103": "12.9", "sm_121": "12.9"}
DEFAULT_CUDA_VERSION = "12.8"
HIP_VERSIONS = {"gfx950": "7.0.0"}
DEFAULT_HIP_VERSION = "6.4.1"


def toolkit_version(target: str, amd: bool) -> str:
    if amd:
        return HIP_VERSIONS.get(target, DEFAULT_HIP_VERSION)
    return CUDA_VERSIONS.get(target, DEFAULT_CUDA_VERSION)

"""One virtual device's numbers: the target's limits (targets/), the named GPU's own (devices.py) and the
user's `--device-props`, merged once, so that every face (torch's properties, Triton's dict) reads the same
number."""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from ttinspect.errors import UsageError
from ttinspect.targets.nvidia import Target
from ttinspect.virtual.devices import DEVICES, DeviceSpec, toolkit_version
from ttinspect.virtual.overrides import KEYS, check_vendor
from ttinspect.virtual.refusal import refuse

_STATIC_SHARED_PER_BLOCK = 48 * 1024  # CUDA: what a block gets without opting in, every compute capability
# CUDA (every compute capability) and HIP (every GPU ROCm supports: its workgroup maximum) alike
_MAX_THREADS_PER_BLOCK = 1024
_GFX = re.compile(r"^gfx(\d+?)([0-9a-f])([0-9a-f])$")


def amd_capability(name: str) -> tuple[int, int]:
    """HIP's (major, minor) from the gfx name: gfx942 -> (9, 4), gfx90a -> (9, 0), gfx1101 -> (11, 0)."""
    match = _GFX.match(name)
    if match is None:
        raise UsageError(f"{name}: not a gfx target name")
    return int(match.group(1)), int(match.group(2), 16)


@dataclass(frozen=True)
class DeviceNumbers:
    target: Target
    spec: DeviceSpec
    values: Mapping[str, Any]  # torch's property name (and a few more) -> value; None: no source
    overrides: Mapping[str, Any]

    @property
    def amd(self) -> bool:
        return self.target.amd is not None

    @property
    def label(self) -> str:
        """How messages name the device: "NVIDIA H100 80GB HBM3, for sm_90"."""
        return f"{self.values['name']}, for {self.target.name}"

    @property
    def capability(self) -> tuple[int, int]:
        if self.amd:
            return amd_capability(self.target.name)
        return divmod(self.target.capability, 10)

    @property
    def arch_name(self) -> str:
        """gcnArchName (Triton's "arch"): the gfx name with the features ROCm reports for an Instinct part."""
        assert self.amd, "an NVIDIA device has no gcnArchName"
        family = self.target.amd.family if self.target.amd else ""
        return f"{self.target.name}:sramecc+:xnack-" if family.startswith("CDNA") else self.target.name

    def get(self, key: str, asked: str) -> Any:
        """A number the code asked for as `asked`; refused, naming `--device-props`, when it has no source."""
        value = self.values.get(key)
        if value is None:
            hint = f"; give it with --device-props {key}=VALUE" if key in KEYS else ""
            raise refuse(asked, self.label, f"does not know (no source for it in ttinspect's device table{hint})")
        return value


def numbers_for(target: Target, overrides: Mapping[str, Any] | None = None) -> DeviceNumbers:
    spec = DEVICES.get(target.name)
    if spec is None:
        raise UsageError(f"{target.name}: no GPU of this target in ttinspect's device table; the virtual device "
                         f"knows {', '.join(DEVICES)}")
    overrides = dict(overrides or {})
    check_vendor(overrides, target.amd is not None, target.name)
    amd = target.amd
    values: dict[str, Any] = {
        "name": spec.name,
        "multi_processor_count": spec.multiprocessors,
        "shared_memory_per_block_optin": target.max_shared_per_block,
        # HIP reports the whole LDS a workgroup may use; CUDA the 48 KB a block gets without opting in
        "shared_memory_per_block": target.max_shared_per_block if amd else _STATIC_SHARED_PER_BLOCK,
        "shared_memory_per_multiprocessor": (
            None if amd is not None and not amd.family.startswith("CDNA") else target.shared_per_sm),
        # NVIDIA: 64 K per SM and per block on every target ttinspect knows; AMD: HIP's count is not in a table
        "regs_per_multiprocessor": None if amd else target.registers_per_sm,
        "warp_size": target.warp_size,
        "max_threads_per_multi_processor": target.max_warps_per_sm * target.warp_size,
        "max_threads_per_block": _MAX_THREADS_PER_BLOCK,
        "L2_cache_size": spec.l2_bytes,
        "total_memory": spec.memory_bytes,
        "clock_rate": spec.clock_khz,
        "memory_clock_rate": spec.memory_clock_khz,
        "memory_bus_width": spec.memory_bus_bits,
        "is_integrated": int(spec.integrated),
        "is_multi_gpu_board": 0,
        "device_count": 1,
        "hip_version" if amd else "cuda_version": toolkit_version(target.name, amd is not None),
    }
    values.update(overrides)
    return DeviceNumbers(target, spec, MappingProxyType(values), MappingProxyType(overrides))


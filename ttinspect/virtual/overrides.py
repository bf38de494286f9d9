"""`--device-props KEY=VALUE`: the virtual device's numbers a user may change, under the names a user knows
them by (torch's property names, Triton's dict keys, the short ones), each checked, each wrong one refused
in one line."""

from __future__ import annotations

import re
from typing import Any, Iterable

from ttinspect.errors import UsageError

# canonical key (torch's property name) -> (what it is, the other names it is known by)
KEYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "name": ("the device's name", ("device_name",)),
    "multi_processor_count": ("SMs (CUs on AMD)", ("num_sms", "sms", "multiprocessor_count", "num_cus", "cus")),
    "shared_memory_per_block_optin": ("bytes of shared memory a block may opt in to",
                                      ("max_shared_mem", "smem", "shared_memory")),
    "regs_per_multiprocessor": ("32-bit registers per SM (and per block)", ("max_num_regs", "regs", "registers")),
    "L2_cache_size": ("bytes of L2", ("l2", "l2_cache_size", "l2_cache")),
    "total_memory": ("bytes of device memory", ("memory", "total_mem")),
    "clock_rate": ("SM clock in kHz", ("sm_clock_rate", "clock_khz")),
    "memory_clock_rate": ("memory clock in kHz", ("mem_clock_rate",)),
    "memory_bus_width": ("memory bus width in bits", ("mem_bus_width", "bus_width")),
    "device_count": ("how many such GPUs torch.cuda.device_count() reports", ("gpus", "num_gpus")),
    "cuda_version": ("torch.version.cuda (NVIDIA targets)", ()),
    "hip_version": ("torch.version.hip (AMD targets)", ()),
}
BYTES = frozenset({"shared_memory_per_block_optin", "L2_cache_size", "total_memory"})
TEXT = frozenset({"name", "cuda_version", "hip_version"})
# Facts of the target itself: changing one would describe a GPU the compile does not build for.
FIXED_BY_TARGET = ("major", "minor", "warp_size", "warpSize", "gcnArchName", "arch", "capability")

_ALIASES = {alias.lower(): key for key, (_, aliases) in KEYS.items() for alias in (key, *aliases)}
_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024 ** 2, "mb": 1024 ** 2, "mib": 1024 ** 2,
          "g": 1024 ** 3, "gb": 1024 ** 3, "gib": 1024 ** 3}
_SIZE = re.compile(r"^(\d+)\s*([a-z]*)$")
_VERSION = re.compile(r"^\d+\.\d+(\.[0-9A-Za-z.-]+)?$")


def canonical_key(text: str) -> str:
    """The property a user's name for it means; a one-line error naming the known ones otherwise."""
    key = _ALIASES.get(text.strip().lower())
    if key is not None:
        return key
    if text.strip() in FIXED_BY_TARGET:
        raise UsageError(f"--device-props {text.strip()}: set by the target itself; choose the target with --arch")
    raise UsageError(f"--device-props: unknown property {text.strip()!r}; known: {', '.join(KEYS)} "
                     f"(also num_sms, max_shared_mem, max_num_regs, l2, ...)")


def parse_value(key: str, text: str, written: str | None = None) -> Any:
    """A property's value from text: a positive integer (bytes may end in KB, MiB, GB, ...), a version, a
    name. `written`: the key as the user wrote it, for messages."""
    text, shown = text.strip(), written or key
    if not text:
        raise UsageError(f"--device-props {shown}=: needs a value ({KEYS[key][0]})")
    if key in TEXT:
        if key != "name" and not _VERSION.match(text):
            raise UsageError(f"--device-props {shown}={text}: expects a version such as 12.8 or 6.4.1")
        return text
    match = _SIZE.match(text.lower())
    unit = match.group(2) if match else None
    if match is None or unit not in _UNITS or unit and key not in BYTES:
        units = " (bytes; KB, MB, GB or KiB, MiB, GiB allowed)" if key in BYTES else ""
        raise UsageError(f"--device-props {shown}={text}: expects a positive integer{units} — {KEYS[key][0]}")
    value = int(match.group(1)) * _UNITS[unit]
    if value <= 0:
        raise UsageError(f"--device-props {shown}={text}: expects a positive integer — {KEYS[key][0]}")
    return value


def parse_device_props(items: Iterable[str]) -> dict[str, Any]:
    """`--device-props` items ("num_sms=114", "l2=50MB") -> {canonical key: value}; a later item wins."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--device-props takes KEY=VALUE (e.g. num_sms=114), got {item!r}")
        key = canonical_key(name)
        out[key] = parse_value(key, text, name.strip())
    return out


def check_vendor(overrides: dict[str, Any], amd: bool, target: str) -> None:
    """A toolkit version of the other vendor's is a mistake, said as one."""
    wrong = "cuda_version" if amd else "hip_version"
    if wrong in overrides:
        raise UsageError(f"--device-props {wrong}: {target} is {'an AMD' if amd else 'an NVIDIA'} target; "
                         f"its toolkit version is {'hip_version' if amd else 'cuda_version'}")

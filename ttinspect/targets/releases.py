"""Which NVIDIA targets each Triton release compiles for — measured, not assumed: a vector add compiled to
a cubin on the CPU by `scripts/versions_probe.py` under every release (docs/versions.md has the full
table, tensor-core path and features included). No triton import: the warm path asks this too.

Asking a Triton for a target it cannot emit is not always a clean error — Triton 3.9 hands sm_88 to
LLVM, which aborts the whole process — so a target the installed release is known not to support is
refused here, in one line that names the release that would compile it.
"""

from __future__ import annotations

import functools
import os
import re
import sys

from ttinspect.errors import UsageError
from ttinspect.targets.amd import AMD_TARGETS
from ttinspect.targets.nvidia import TARGETS

_ALL_TURING_ON = ("sm_70", "sm_72", "sm_75")
_AMPERE_TO_HOPPER = ("sm_80", "sm_86", "sm_87", "sm_89", "sm_90")

# (major, minor) -> the targets that release compiles for. Patch releases of one minor agree
# (3.3.1, 3.4.0, 3.5.1, 3.6.0, 3.7.1, 3.8.0, 3.9.0 were measured).
COMPILES_FOR: dict[tuple[int, int], tuple[str, ...]] = {
    (3, 3): _ALL_TURING_ON + _AMPERE_TO_HOPPER + ("sm_100", "sm_101", "sm_120"),
    (3, 4): _ALL_TURING_ON + _AMPERE_TO_HOPPER + ("sm_100", "sm_101", "sm_120"),
    (3, 5): _ALL_TURING_ON + _AMPERE_TO_HOPPER + ("sm_100", "sm_101", "sm_120"),
    (3, 6): _ALL_TURING_ON + _AMPERE_TO_HOPPER + ("sm_100", "sm_101", "sm_103", "sm_120", "sm_121"),
    (3, 7): _ALL_TURING_ON + _AMPERE_TO_HOPPER + ("sm_100", "sm_103", "sm_110", "sm_120", "sm_121"),
    (3, 8): _ALL_TURING_ON + _AMPERE_TO_HOPPER + ("sm_100", "sm_103", "sm_110", "sm_120", "sm_121"),
    (3, 9): _ALL_TURING_ON + _AMPERE_TO_HOPPER + ("sm_100", "sm_103", "sm_110", "sm_120", "sm_121"),
}
# AMD targets, measured the same way (scripts/amd_targets_probe.py; docs/amd.md). Triton 3.3 has the HIP
# backend but links with ROCm's ld.lld, which its wheel does not ship: nothing compiles without ROCm.
# Releases not listed were not measured here (no venv): their AMD targets are tried, not refused.
_AMD_ALL = ("gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1200", "gfx1201")
AMD_COMPILES_FOR: dict[tuple[int, int], tuple[str, ...]] = {(3, 3): (), (3, 6): _AMD_ALL, (3, 9): _AMD_ALL}
AMD_NOT_COMPILED = {(3, 3): "links AMD code with ROCm's ld.lld, which its wheel does not ship"}

# Compiled by some release, but without per-SM limits ttinspect could verify (occupancy needs them).
NO_LIMITS = {"sm_101": "Thor under its first name (CUDA 12.8/12.9)", "sm_110": "Jetson Thor"}


def release(version: str) -> tuple[int, int]:
    """"3.6.0", "3.5.0+git1234" -> (3, 6): what the tables are keyed by."""
    major, minor = (int(x) for x in re.findall(r"\d+", version)[:2])
    return major, minor


@functools.lru_cache(maxsize=1)
def dist_info_version() -> str | None:
    """The installed Triton's version from its `triton-X.dist-info` directory, found on sys.path the way
    importlib.metadata finds it (first match wins) but without importing it (~20 ms of a warm command)."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        found = [n for n in names if n.startswith("triton-") and n.endswith(".dist-info")]
        if len(found) == 1:
            return found[0][len("triton-"):-len(".dist-info")]
        if found:  # several: let importlib.metadata decide
            return None
    return None


def triton_version() -> str:
    found = dist_info_version()
    if found:
        return found
    import importlib.metadata

    try:
        return importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError as exc:
        raise UsageError("triton is not installed (pip install triton)") from exc


def installed_version() -> str | None:
    """The installed Triton's release, None when there is none (triton_version says why)."""
    try:
        return triton_version()
    except UsageError:
        return None


def installed() -> tuple[int, int] | None:
    found = installed_version()
    return release(found) if found else None


def _name(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


def _is_amd(target: str) -> bool:
    return target.startswith("gfx")


def _table(target: str) -> dict[tuple[int, int], tuple[str, ...]]:
    return AMD_COMPILES_FOR if _is_amd(target) else COMPILES_FOR


def releases_for(target: str) -> list[tuple[int, int]]:
    return [version for version, targets in sorted(_table(target).items()) if target in targets]


def supported_targets(version: tuple[int, int] | None = None) -> list[str]:
    """The targets ttinspect can use with this Triton (the installed one by default): compiled by it and
    with known limits, NVIDIA's then AMD's. An unmeasured (newer) release: every target ttinspect knows."""
    version = version or installed()
    measured = COMPILES_FOR.get(version) if version else None
    amd = AMD_COMPILES_FOR.get(version) if version else None
    return ([name for name in TARGETS if measured is None or name in measured]
            + [name for name in AMD_TARGETS if amd is None or name in amd])


def _span(releases: list[tuple[int, int]]) -> str:
    if not releases:
        return "no measured Triton release"
    first, last = releases[0], releases[-1]
    newest = max(COMPILES_FOR)  # AMD: 3.9 is measured too
    if last == newest:
        return f"Triton >= {_name(first)}"
    return f"Triton {_name(first)}" + (f" to {_name(last)}" if last != first else "")


def check_supported(target: str) -> None:
    """Refuse, in one line, a target the installed Triton is known not to compile for."""
    version = installed()
    table = _table(target)
    if version is None or version not in table or target in table[version]:
        return
    if _is_amd(target) and version in AMD_NOT_COMPILED:
        raise UsageError(f"{target}: the installed Triton {_name(version)} {AMD_NOT_COMPILED[version]}, so it "
                         f"compiles for no AMD target here; {_span(releases_for(target))} can")
    raise UsageError(f"{target}: the installed Triton {_name(version)} cannot compile for it; "
                     f"{_span(releases_for(target))} can. Targets here: {', '.join(supported_targets())}")


def describe_unknown_target(target: str) -> str:
    """The message for a target name ttinspect has no limits for."""
    releases = releases_for(target)
    known = ", ".join(supported_targets())
    if target in NO_LIMITS:
        return (f"{target} ({NO_LIMITS[target]}): {_span(releases)} compiles for it, but ttinspect has no "
                f"verified per-SM limits for it (docs/resources.md); targets here: {known}")
    if _is_amd(target):
        return (f"unknown arch {target!r}: not an AMD target ttinspect has verified limits for (docs/resources.md); "
                f"targets here: {known}")
    return f"unknown arch {target!r}: no Triton release from 3.3 to 3.9 compiles for it; targets here: {known}"


def target_rows() -> list[dict]:
    """Every target ttinspect knows or that some release compiles: its limits and its Tritons."""
    here = installed()
    measured = COMPILES_FOR.get(here) if here is not None else None  # None: this release was not measured
    rows = []
    names = list(TARGETS) + [n for n in NO_LIMITS if n not in TARGETS]
    for name in sorted(names, key=lambda n: int(n[3:])):
        target = TARGETS.get(name)
        compiles = None if measured is None else name in measured
        rows.append({
            "target": name, "gpus": target.gpu_examples if target else NO_LIMITS[name],
            "max_shared_per_block": target.max_shared_per_block if target else None,
            "shared_per_sm": target.shared_per_sm if target else None,
            "max_warps_per_sm": target.max_warps_per_sm if target else None,
            "max_blocks_per_sm": target.max_blocks_per_sm if target else None,
            "installed_triton_compiles": compiles,
            "usable": target is not None and compiles is not False,
            "tritons": _span(releases_for(name)),
        })
    return rows + _amd_rows(here)


def _amd_rows(here: tuple[int, int] | None) -> list[dict]:
    measured = AMD_COMPILES_FOR.get(here) if here is not None else None
    rows = []
    for name, target in AMD_TARGETS.items():
        compiles = None if measured is None else name in measured
        rows.append({
            "target": name, "gpus": target.gpu_examples, "max_shared_per_block": target.max_shared_per_block,
            "shared_per_sm": target.shared_per_sm, "max_warps_per_sm": target.max_warps_per_sm,
            "max_blocks_per_sm": target.max_blocks_per_sm, "installed_triton_compiles": compiles,
            "usable": compiles is not False, "tritons": _span(releases_for(name)),
        })
    return rows

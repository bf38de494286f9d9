"""A target with one GPU's own limits: `--device-props` may describe a part of the family with less shared
memory or fewer registers than the table's (a cut-down or a partitioned GPU), and the facts that read those
limits — whether the kernel fits, occupancy, check's TTI004/TTI006 — must follow it, not the table.

Only the two limits the facts read are carried: shared memory a block may opt in to, and registers per SM.
The SM's shared memory follows the block's on NVIDIA: every NVIDIA part's per-SM figure is its per-block
opt-in maximum plus the CUDA runtime's per-block reservation (1 KB from cc 8.0, none before), so a part
that gives a block less also has less per SM. A build's record keeps what differs from the table
(`changed_limits`), so the warm path rebuilds the same target (`with_limits`)."""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from ttinspect.targets.lookup import lookup
from ttinspect.targets.nvidia import Target

# the limit fields a record may carry, and the virtual device's property each comes from
LIMIT_OF_PROPERTY = {"shared_memory_per_block_optin": "max_shared_per_block",
                     "regs_per_multiprocessor": "registers_per_sm"}


def with_device_props(target: Target, props: Mapping[str, object]) -> Target:
    """`target` with the limits the device's properties (virtual/overrides.py's canonical keys) give."""
    limits = {field: value for key, field in LIMIT_OF_PROPERTY.items() if isinstance(value := props.get(key), int)}
    return with_limits(target, limits)


def with_limits(target: Target, limits: Mapping[str, int] | None) -> Target:
    given = {k: int(v) for k, v in (limits or {}).items() if k in LIMIT_OF_PROPERTY.values()}
    changes: dict[str, Any] = dict(given)
    shared = given.get("max_shared_per_block")
    if target.amd is not None:
        changes.pop("registers_per_sm", None)  # HIP's register count per CU has no source (virtual-device.md)
        if shared is not None:
            changes["amd"] = dataclasses.replace(target.amd, lds_per_workgroup=shared)
    elif shared is not None:
        changes["shared_per_sm"] = shared + target.shared_reserved_per_block
    return dataclasses.replace(target, **changes) if changes else target


def changed_limits(target: Target) -> dict[str, int]:
    """The limits in which `target` differs from its table's entry: empty for the table's own."""
    table = lookup(target.name)
    if table is None or table == target:
        return {}
    return {field: getattr(target, field) for field in LIMIT_OF_PROPERTY.values()
            if getattr(target, field) != getattr(table, field)}


_SAID = {"max_shared_per_block": "shared memory per block {} B", "registers_per_sm": "registers per SM {}"}


def limits_text(target: Target) -> str | None:
    """`sm_90 with --device-props: shared memory per block 102400 B`, or None for the table's own limits."""
    limits = changed_limits(target)
    if not limits:
        return None
    return f"{target.name} with --device-props: " + ", ".join(_SAID[k].format(v) for k, v in limits.items())

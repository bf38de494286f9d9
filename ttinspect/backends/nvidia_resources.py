"""NVIDIA's occupancy calculator (the CUDA occupancy calculator, cuda_occupancy.h, over the target's
limits in targets/nvidia.py) and the registers & occupancy facts of a cubin (its resource table and the
`ptxas -v` report, parsed by facts/resources.py)."""

from __future__ import annotations

from dataclasses import dataclass

from ttinspect.facts.model import Fact, known, unknown
from ttinspect.facts.resources import GROUP, PtxasReport, Resources
from ttinspect.targets.nvidia import Target

REG_ALLOC_UNIT = 256  # registers are allocated per warp in units of 256
SUB_PARTITIONS = 4  # an SM's register file is split across 4 schedulers (cc >= 7.0)
# Shared memory reserved per block and its allocation unit are per target (targets/nvidia.py).


@dataclass(frozen=True)
class Occupancy:
    blocks_per_sm: int
    warps_per_sm: int
    occupancy: float  # active warps / max warps per SM
    limited_by: tuple[str, ...]  # "registers", "shared memory", "warps", "blocks"
    limits: tuple[tuple[str, int], ...]  # blocks per SM allowed by each resource


def occupancy(target: Target, *, registers: int, shared: int, num_warps: int) -> Occupancy:
    regs_per_warp = -(-registers * target.warp_size // REG_ALLOC_UNIT) * REG_ALLOC_UNIT
    warps_per_partition = (target.registers_per_sm // SUB_PARTITIONS) // regs_per_warp if regs_per_warp else 0
    by_regs = (warps_per_partition * SUB_PARTITIONS) // num_warps if regs_per_warp else target.max_blocks_per_sm
    unit = target.shared_alloc_unit
    per_block = -(-(shared + target.shared_reserved_per_block) // unit) * unit
    # No shared memory and nothing reserved (before cc 8.0): shared memory does not limit at all.
    by_shared = target.shared_per_sm // per_block if per_block else target.max_blocks_per_sm
    by_warps = target.max_warps_per_sm // num_warps
    limits = (("registers", by_regs), ("shared memory", by_shared), ("warps", by_warps),
              ("blocks", target.max_blocks_per_sm))
    blocks = min(value for _, value in limits)
    limited = tuple(name for name, value in limits if value == blocks)
    return Occupancy(blocks, blocks * num_warps, blocks * num_warps / target.max_warps_per_sm, limited, limits)


def resource_facts(target: Target, usage: Resources | None, usage_reason: str, ptxas: PtxasReport | None,
                   ptxas_reason: str, *, shared: int, num_warps: int) -> list[Fact]:
    facts: list[Fact] = []
    if usage is None:
        for key, title in (("registers", "registers per thread"), ("spills", "n_spills ((stack + local) / 4)"),
                           ("local_bytes", "local memory per thread (bytes)"), ("stack", "stack frame (bytes)")):
            facts.append(unknown(key, title, GROUP, usage_reason, "from the cubin's resource table", "cubin"))
    else:
        facts += [
            known("registers", "registers per thread", GROUP, usage.registers,
                  "registers ptxas allocated per thread; the GPU reports the same as n_regs", "cubin"),
            known("spills", "n_spills ((stack + local) / 4)", GROUP, usage.spills,
                  "what Triton reports as n_spills: the thread's local memory (stack frame, where "
                  "spills go, + local arrays) in 4-byte words; 0 = nothing spilled", "cubin"),
            known("local_bytes", "local memory per thread (bytes)", GROUP, usage.local,
                  "per-thread local memory (register spills and local arrays), slow off-chip memory",
                  "cubin"),
            known("stack", "stack frame (bytes)", GROUP, usage.stack, "per-thread call stack", "cubin"),
        ]
    for key, title, field, what in (("spill_store_bytes", "spill stores (bytes)", "spill_stores", "spilled to"),
                                    ("spill_load_bytes", "spill loads (bytes)", "spill_loads", "reloaded from")):
        explanation = f"bytes per thread ptxas {what} local memory (ptxas -v)"
        facts.append(unknown(key, title, GROUP, ptxas_reason, explanation, "ptxas -v") if ptxas is None
                     else known(key, title, GROUP, getattr(ptxas, field), explanation, "ptxas -v"))
    if usage is None:
        reason = f"needs the register count: {usage_reason}"
        for key, title in (("blocks_per_sm", "blocks per SM"), ("occupancy", "occupancy"),
                           ("occupancy_limit", "occupancy limited by")):
            facts.append(unknown(key, title, GROUP, reason, "from registers, shared memory and warps", "derived"))
        return facts
    occ = occupancy(target, registers=usage.registers, shared=shared, num_warps=num_warps)
    facts += [
        known("blocks_per_sm", "blocks (CTAs) per SM", GROUP, occ.blocks_per_sm,
              f"CTAs that fit on one {target.name} SM at once, counting Triton's dynamic shared memory"
              + (f" (+{target.shared_reserved_per_block // 1024} KB reserved per CTA)"
                 if target.shared_reserved_per_block else "")
              + "; limits: " + ", ".join(f"{n} {v}" for n, v in occ.limits), "derived"),
        known("warps_per_sm", "warps per SM", GROUP, occ.warps_per_sm,
              f"active warps per SM (of {target.max_warps_per_sm})", "derived"),
        known("occupancy", "occupancy", GROUP, f"{occ.occupancy:.0%}",
              "active warps / maximum warps per SM (theoretical, as the CUDA occupancy calculator)",
              "derived"),
        known("occupancy_limit", "occupancy limited by", GROUP, ", ".join(occ.limited_by),
              "the resource that caps CTAs per SM", "derived"),
    ]
    return facts

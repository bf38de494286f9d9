"""Registers, local memory (spills), stack — what the GPU will report at launch — and occupancy.

Two sources, both of the exact binary Triton built:
- the cubin's resource table (`cuobjdump --dump-resource-usage`): `REG:64 STACK:0 SHARED:1024 LOCAL:0`.
  Triton's launcher reports `n_regs` = CU_FUNC_ATTRIBUTE_NUM_REGS (= REG) and `n_spills` =
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES / 4 of this very cubin. The driver's local size is the stack frame
  (where ptxas puts spills) plus LOCAL: measured on an H100, seed 002's kernel has STACK:1128 LOCAL:0
  and the GPU reports n_spills 282 = 1128 / 4. So these agree with the GPU whenever the Triton version
  (hence the ptxas) is the same;
- the `ptxas -v` report Triton's own compile printed (kept by the engine): spill store/load bytes.
Occupancy follows the CUDA occupancy calculator (cuda_occupancy.h) for the target's limits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ttinspect.targets.nvidia import Target
from ttinspect.facts.model import Fact, known, unknown

GROUP = "registers & occupancy"

# REG:64 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:592 TEXTURE:0 SURFACE:0 SAMPLER:0
_USAGE_RE = re.compile(r"REG:(\d+)\s+STACK:(\d+)\s+SHARED:(\d+)\s+LOCAL:(\d+)")
# Function matmul_opt_kernel:
_FUNCTION_RE = re.compile(r"^\s*Function\s+([\w$.]+):", re.M)
#     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
_SPILL_RE = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
# ptxas info    : Used 64 registers, used 1 barriers      (also "ptxas-blackwell info")
_USED_RE = re.compile(r"Used (\d+) registers")

REG_ALLOC_UNIT = 256  # registers are allocated per warp in units of 256
SUB_PARTITIONS = 4  # an SM's register file is split across 4 schedulers (cc >= 7.0)
# Shared memory reserved per block and its allocation unit are per target (targets.py).


@dataclass(frozen=True)
class Resources:
    registers: int
    stack: int
    local: int  # bytes of local memory per thread (spills and local arrays)

    @property
    def spills(self) -> int:
        """What Triton's launcher reports as n_spills: the driver's LOCAL_SIZE_BYTES (stack frame +
        local arrays) / 4."""
        return (self.stack + self.local) // 4


def parse_resource_usage(text: str, kernel: str | None = None) -> Resources | None:
    """The kernel's line of `cuobjdump --dump-resource-usage` (the first function when unnamed)."""
    blocks = _FUNCTION_RE.split(text)
    # split gives [preamble, name1, body1, name2, body2, ...]
    for name, body in zip(blocks[1::2], blocks[2::2], strict=True):
        if kernel is None or name == kernel:
            m = _USAGE_RE.search(body)
            if m:
                return Resources(int(m[1]), int(m[2]), int(m[4]))
    return None


@dataclass(frozen=True)
class PtxasReport:
    registers: int
    stack_frame: int
    spill_stores: int
    spill_loads: int


def parse_ptxas_log(text: str) -> PtxasReport | None:
    spill, used = _SPILL_RE.search(text), _USED_RE.search(text)
    if not spill or not used:
        return None
    return PtxasReport(int(used[1]), int(spill[1]), int(spill[2]), int(spill[3]))


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

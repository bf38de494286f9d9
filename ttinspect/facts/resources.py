"""Registers, local memory (spills), stack — what the GPU will report at launch — parsed from the cubin.

Two sources, both of the exact binary Triton built:
- the cubin's resource table (`cuobjdump --dump-resource-usage`): `REG:64 STACK:0 SHARED:1024 LOCAL:0`.
  Triton's launcher reports `n_regs` = CU_FUNC_ATTRIBUTE_NUM_REGS (= REG) and `n_spills` =
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES / 4 of this very cubin. The driver's local size is the stack frame
  (where ptxas puts spills) plus LOCAL: measured on an H100, seed 002's kernel has STACK:1128 LOCAL:0
  and the GPU reports n_spills 282 = 1128 / 4. So these agree with the GPU whenever the Triton version
  (hence the ptxas) is the same;
- the `ptxas -v` report Triton's own compile printed (kept by the engine): spill store/load bytes.
Occupancy and the facts derived from it: backends/nvidia_resources.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GROUP = "registers & occupancy"

# REG:64 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:592 TEXTURE:0 SURFACE:0 SAMPLER:0
_USAGE_RE = re.compile(r"REG:(\d+)\s+STACK:(\d+)\s+SHARED:(\d+)\s+LOCAL:(\d+)")
# Function matmul_opt_kernel:
_FUNCTION_RE = re.compile(r"^\s*Function\s+([\w$.]+):", re.M)
#     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
_SPILL_RE = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
# ptxas info    : Used 64 registers, used 1 barriers      (also "ptxas-blackwell info")
_USED_RE = re.compile(r"Used (\d+) registers")


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

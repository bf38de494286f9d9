"""The rules whose findings read differently per vendor — TTI003 register-spills and TTI004
occupancy-limited: each backend's own finding builder (check/registers.py for NVIDIA's cubin and SASS,
check/amd.py for AMD's assembly and notes), looked up by the backend's name."""

from __future__ import annotations

from ttinspect.backends import backend_for
from ttinspect.check import amd, registers
from ttinspect.check.context import fact_value, stages_of
from ttinspect.check.model import Finding
from ttinspect.check.pipelining import loop_depth

_SPILLS = {"nvidia": registers.register_spills, "amd": amd.register_spills}
_OCCUPANCY = {"nvidia": registers.occupancy_limited, "amd": amd.occupancy_limited}


def register_spills(report, build) -> list[Finding]:
    if build is None:  # the report's facts alone (the cubin's and ptxas's): NVIDIA's reading
        return registers.register_spills(report, build)
    return _SPILLS[backend_for(build.target).name](report, build)


def occupancy_limited(report, build) -> list[Finding]:
    """Info/warning: a kernel that is not software-pipelined (so it hides memory latency with resident warps)
    and whose CTAs per SM are capped by registers, shared memory or its warp count."""
    if build is None:
        return []
    registers_, warps = fact_value(report, "registers"), fact_value(report, "num_warps")
    shared = fact_value(report, "shared_memory")
    if not isinstance(registers_, int) or not isinstance(warps, int) or not isinstance(shared, int):
        return []
    depth, _ = loop_depth(report, stages_of(build))
    return _OCCUPANCY[backend_for(build.target).name](report, build, depth, no_loop(report))


def no_loop(report) -> bool:
    try:
        return (report.fact("pipeline_depth").unknown or "").startswith("not applicable")
    except KeyError:
        return False

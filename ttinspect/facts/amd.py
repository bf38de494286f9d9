"""The facts of a kernel compiled for an AMD GPU, from its AMDGCN assembly, its TTGIR and Triton's
metadata: pure, text in, facts out. Keys shared with NVIDIA (`tensor_core_path`, `loop_tensor_core_ops`,
`pipeline_depth`, `registers`, `spills`, `occupancy`, `blocks_per_sm`, ...) mean the same thing, so that
`diff opt@sm_90 opt@gfx942` aligns them; the rest are AMD's own.

Registers and occupancy have two witnesses each, written independently by LLVM: its resource report
(`; NumVgprs: 62`, `; Occupancy: 8`) and the code-object notes the runtime reads (`.vgpr_count: 62`).
A fact is known only when they agree; otherwise it is unknown and says both.

Registers and occupancy: backends/amd_resources.py (the occupancy calculator is the backend's).
Pipeline depth: facts/amd_pipeline.py (two witnesses in the TTGIR: the pipeliner's prologue, the LDS ring).
"""

from __future__ import annotations

import re

from ttinspect.dialects.amdgcn import AmdgcnModule
from ttinspect.targets.nvidia import Target
from ttinspect.facts.amd_pipeline import pipeline_depth
from ttinspect.facts.model import Fact, counts, known, loop_fact

TC, MEM, PIPE = "tensor cores", "memory traffic", "pipeline"

_LOADS = ("global_load", "buffer_load")
_STORES = ("global_store", "buffer_store")


def _loop(module: AmdgcnModule):
    kernel = module.kernel
    main = kernel.main_loop if kernel else None
    return kernel, main, (kernel.loop_instructions(main.loop) if kernel and main else ())


def _no_loop_reason(module: AmdgcnModule) -> str:
    kernel = module.kernel
    if kernel is None:
        return "no function in the assembly"
    return f"{kernel.name} has no loop" if not kernel.loops else "no main loop"


def amd_facts(module: AmdgcnModule, ttgir: str, target: Target, *, release: tuple[int, int] | None) -> list[Fact]:
    """The matrix, pipeline and memory facts (the registers & occupancy ones: backends/amd_resources.py).
    `release`: the Triton (major, minor) that compiled it — the depth rule is per release."""
    return _matrix_facts(module, target) + [_pipeline_depth(module, ttgir, target, release)] + _memory_facts(module)


def _matrix_facts(module: AmdgcnModule, target: Target) -> list[Fact]:
    kernel, main, loop = _loop(module)
    everything = kernel.instructions if kernel else ()
    matrix = [i.mnemonic for i in everything if i.is_tensor_core]
    in_loop = [i.mnemonic for i in loop if i.is_tensor_core]
    path = ("wmma" if any("wmma" in m for m in matrix) else "mfma") if matrix else "none"
    has_loop, why = main is not None, _no_loop_reason(module)
    kind = "MFMA (CDNA)" if target.amd and target.amd.matrix_core == "mfma" else "WMMA (RDNA)"
    return [
        known("tensor_core_path", "tensor-core path", TC, path,
              f"the matrix-core instructions tl.dot became: {kind}; none = no matrix instruction", "amdgcn"),
        loop_fact("loop_tensor_core_ops", "matrix-core ops per iteration", TC, len(in_loop),
                  "v_mfma / v_wmma instructions in one trip around the main loop (one BLOCK_K step)",
                  "amdgcn main loop", has_loop=has_loop, loop_reason=why),
        loop_fact("loop_matrix_ops", "matrix ops per iteration, by shape", TC, counts(in_loop),
                  "each instruction names its shape and types: v_mfma_f32_32x32x8_f16 = 32×32 output, K=8, "
                  "fp16 in, fp32 accumulate", "amdgcn main loop", has_loop=has_loop, loop_reason=why),
        known("matrix_ops", "matrix ops (kernel), by shape", TC, counts(matrix),
              "every matrix-core instruction in the kernel (prologue and epilogue of the pipeline included)",
              "amdgcn"),
    ]


def _pipeline_depth(module: AmdgcnModule, ttgir: str, target: Target, release: tuple[int, int] | None) -> Fact:
    _, main, _ = _loop(module)
    return pipeline_depth(ttgir, target, release, has_loop=main is not None, no_loop_reason=_no_loop_reason(module))


def descriptor_fact(signature: dict | None, target: Target) -> Fact | None:
    """A kernel that takes tensor descriptors (NVIDIA's TMA on sm_90+): on AMD Triton lowers them to ordinary
    loads and stores — the report says so in one line (their widths are the load/store facts). None without
    descriptors (or where the signature was not recorded: a Triton cache entry)."""
    names = [name for name, kind in (signature or {}).items() if str(kind).startswith("tensordesc")]
    if not names:
        return None
    return known("tensor_descriptors", "tensor descriptors (no TMA on AMD)", MEM,
                 f"{', '.join(names)} → plain loads and stores",
                 f"the kernel takes tensor descriptors, which NVIDIA sm_90+ copies with TMA; {target.name} has no "
                 "TMA unit, so Triton lowers each descriptor load/store to ordinary global or buffer accesses "
                 "(their widths: `ttinspect check` says when they are narrow)", "metadata + amdgcn")


def _width(mnemonic: str) -> str:
    """global_load_dwordx4 -> dwordx4; ds_read_b128 -> b128; buffer_load_dword -> dword."""
    return mnemonic.rsplit("_", 1)[-1]


def _memory_facts(module: AmdgcnModule) -> list[Fact]:
    kernel, main, loop = _loop(module)
    everything = kernel.instructions if kernel else ()
    has_loop, why = main is not None, _no_loop_reason(module)

    def tally(items, *prefixes):  # spill reloads / stores through buffer_* are not the kernel's traffic
        return counts(i.mnemonic for i in items if i.mnemonic.startswith(prefixes) and not i.spill)

    waits = counts(" ".join(i.operands) or "0" for i in loop if i.mnemonic == "s_waitcnt")
    direct = [i for i in everything if i.mnemonic.startswith("global_load_lds")
              or (i.mnemonic.startswith(_LOADS) and i.operands and re.search(r"\blds\b", i.operands[-1]))]
    return [
        loop_fact("loop_global_loads", "global / buffer loads per iteration", MEM, tally(loop, *_LOADS),
                  "loads from global memory in one trip, by instruction and width (dwordx4 = 16 bytes per lane); "
                  "buffer_load goes through a buffer resource descriptor", "amdgcn main loop",
                  has_loop=has_loop, loop_reason=why),
        known("gcn_global_loads", "global / buffer loads (kernel)", MEM, tally(everything, *_LOADS),
              "every load from global memory, by instruction and width", "amdgcn"),
        known("gcn_global_stores", "global / buffer stores (kernel)", MEM, tally(everything, *_STORES),
              "every store to global memory, by instruction and width", "amdgcn"),
        loop_fact("loop_lds_reads", "LDS reads per iteration", MEM, tally(loop, "ds_read", "ds_load"),
                  "reads from LDS (shared memory) in one trip, by width: ds_read_b128 = 16 bytes per lane",
                  "amdgcn main loop", has_loop=has_loop, loop_reason=why),
        loop_fact("loop_lds_writes", "LDS writes per iteration", MEM, tally(loop, "ds_write", "ds_store"),
                  "writes to LDS in one trip, by width (ds_write2st64_b64: two 8-byte writes)", "amdgcn main loop",
                  has_loop=has_loop, loop_reason=why),
        known("direct_to_lds_loads", "direct-to-LDS loads", MEM, len(direct),
              "global loads that write LDS without passing through registers (buffer_load ... lds, gfx950's "
              "global_load_lds_*); 0 = every tile goes global -> VGPRs -> LDS", "amdgcn"),
        loop_fact("loop_waitcnt", "s_waitcnt in the loop", PIPE, waits,
                  "the waits of one trip: vmcnt(N) = until at most N global loads are outstanding, lgkmcnt(N) = "
                  "LDS/scalar loads; vmcnt(0) in the loop = the loop waits for this iteration's global loads",
                  "amdgcn main loop", has_loop=has_loop, loop_reason=why),
    ]

"""The AMD backend: facts from LLVM's AMDGCN assembly (facts/amd.py; registers and occupancy with the
calculator of backends/amd_resources.py), and the check rules' hooks read from the assembly: the width of
each global access per Python line (`global_load_ushort` = 16 bits per lane, `global_load_dwordx4` = 128)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from ttinspect.backends.stages import IrStages, all_unknown, main_loop_text, stage_text
from ttinspect.facts.model import Fact

if TYPE_CHECKING:
    from ttinspect.engine.builds import Build

# bits per lane of a global / buffer access, by the suffix of its mnemonic (global_load_dwordx4, buffer_
# store_short, global_load_b128 on RDNA4 / gfx12 naming)
_SUFFIX_BITS = {"dword": 32, "dwordx2": 64, "dwordx3": 96, "dwordx4": 128, "short": 16, "ushort": 16,
                "sshort": 16, "byte": 8, "ubyte": 8, "sbyte": 8, "b32": 32, "b64": 64, "b96": 96, "b128": 128,
                "u16": 16, "i16": 16, "b16": 16, "u8": 8, "i8": 8, "b8": 8}
_ACCESS = {"global_load": "load", "buffer_load": "load", "global_store": "store", "buffer_store": "store"}


class AmdBackend:
    name = "amd"
    assembly_stage = "amdgcn"
    thread_word = "lane"
    cta_word = "workgroup"
    shared_word = "LDS"

    # --- facts ----------------------------------------------------------------------------------
    def facts(self, result: Build, sass: bool) -> tuple[list[Fact], str | None]:
        """The assembly's facts (facts/amd.py, then registers and occupancy), the IR's, and the main loop."""
        from ttinspect.backends.amd_resources import register_facts  # only where facts are computed
        from ttinspect.dialects.amdgcn import parse_amdgcn  # a parser: only where facts are computed
        from ttinspect.facts.amd import amd_facts, descriptor_fact  # likewise

        text, missing = stage_text(result, "amdgcn")
        module = parse_amdgcn(text)
        meta = result.metadata
        facts = amd_facts(module, stage_text(result, "ttgir")[0], result.target,
                          release=_release(meta.get("triton_version")))
        facts += register_facts(module, result.target, shared=meta.get("shared") or 0,
                                num_warps=meta.get("num_warps") or 4)
        descriptors = descriptor_fact((meta.get("ttinspect") or {}).get("signature"), result.target)
        if descriptors is not None:
            facts.append(descriptors)
        if not missing and module.kernel is None:
            missing = "the amdgcn has no function, so facts read from it are unknown"
        own = all_unknown(facts, missing)
        return own + IrStages.of(result).facts(result), (main_loop_text(text, module) if not missing else None)

    # --- the check rules' hooks -----------------------------------------------------------------
    def has_tma(self, target: Any) -> bool:
        return False  # AMD GPUs have no TMA: descriptors lower to plain loads and stores

    def has_async_copy(self, target: Any) -> bool:
        return True  # TTI001 judges AMD's stream pipeliner by the depth it reached, not by an instruction

    def mma_upgrade(self, target: Any) -> tuple[str, int] | None:
        return None  # TTI002 is about NVIDIA's MMA instructions; AMD's matrix path is one per target

    def access_widths(self, stages: Any) -> dict[tuple[int, str], list[tuple[int, int]]]:
        """(python line, "load"/"store") -> [(bits per lane, amdgcn line)] for every global access."""
        module = stages.amdgcn
        out: dict[tuple[int, str], list[tuple[int, int]]] = defaultdict(list)
        if module is None or module.kernel is None:
            return out
        for ins in module.kernel.instructions:
            found = None if ins.spill else access_bits(ins.mnemonic)
            if found is None:
                continue
            line = stages.python_line("amdgcn", ins.line)
            if line is not None:
                out[(line, found[0])].append((found[1], ins.line))
        return out

    def narrow_loop_loads(self, stages: Any) -> tuple:
        module = stages.amdgcn
        kernel = module.kernel if module is not None else None
        main = kernel.main_loop if kernel is not None else None
        if kernel is None or main is None:
            return ()
        found = []
        for ins in kernel.loop_instructions(main.loop):
            access = None if ins.spill else access_bits(ins.mnemonic)
            if access is not None and access[0] == "load" and access[1] < 32:
                found.append(stages.evidence("amdgcn", ins.line))
        return tuple(found[:2])

    def narrow_loop_reason(self, target: Any, where: str, descriptors: list[str]) -> tuple[str, str]:
        from_descriptors = (f": they come from tensor descriptors ({', '.join(descriptors)}), which on "
                            f"{target.name} lower to plain loads (AMD GPUs have no TMA)") if descriptors else ""
        text = (f"its loads{where} move fewer than 4 bytes per lane at a time{from_descriptors}; Triton's AMD "
                "stream pipeliner left such loops alone in ttinspect's measurements on gfx942 (gfx950 pipelines "
                "them: docs/amd.md)")
        fix = ("Load the tiles through pointers (`*fp16:16` arguments, the unit stride passed as 1)." if descriptors
               else "Make each lane's loads ≥ 4 contiguous bytes with the change TTI005 gives for the same line.")
        return text, fix

    def narrow_blocks_pipelining(self, report: Any, narrow_in_loop: bool) -> tuple[bool, str]:
        """No cp.async on AMD: a narrow load blocked pipelining only where the depth shows the loop was not."""
        depth, asked = _fact_value(report, "pipeline_depth"), _fact_value(report, "num_stages")
        blocked = narrow_in_loop and depth == 1 and isinstance(asked, int) and asked > 1
        return blocked, " — and the loop around it was not pipelined (TTI001)"

    def descriptor_lowering(self, target: Any) -> tuple[str, str]:
        return "AMD GPUs have no TMA", "."


AMD = AmdBackend()


def access_bits(mnemonic: str) -> tuple[str, int] | None:
    """("load", 128) for global_load_dwordx4; ("store", 16) for buffer_store_short; None otherwise.
    `_d16`/`_hi` variants (half a register) and direct-to-LDS forms keep their width."""
    for prefix, kind in _ACCESS.items():
        if mnemonic.startswith(prefix + "_"):
            parts = mnemonic[len(prefix) + 1:].split("_")
            for part in parts:
                if part in _SUFFIX_BITS:
                    return kind, _SUFFIX_BITS[part]
    return None


def _fact_value(report: Any, key: str) -> Any:
    try:
        return report.fact(key).value
    except KeyError:
        return None


def _release(version: Any) -> tuple[int, int] | None:
    from ttinspect.targets.releases import release  # its version table: only where facts are computed

    try:
        return release(str(version))
    except ValueError:  # no version in a foreign cache entry's metadata
        return None

"""Reading a build's stages for its facts, the same for every vendor: a stage's text or why it is missing,
facts made unknown by a missing stage, the main loop's lines, and the TTIR/TTGIR facts."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ttinspect.facts.model import Fact

if TYPE_CHECKING:
    from ttinspect.dialects.cfg import KernelModule
    from ttinspect.engine.builds import Build


def stage_text(result: Build, stage: str) -> tuple[str, str | None]:
    """The stage's text, or "" and why it is missing (a Triton cache entry may lack stages)."""
    from ttinspect.engine.artifacts import MissingStage  # a warm report reads its facts back: engine unneeded

    try:
        return result.artifacts.text(stage), None
    except MissingStage as error:
        return "", f"{error.short}, so facts read from it are unknown"


def all_unknown(facts: list[Fact], reason: str | None) -> list[Fact]:
    """The facts a missing stage would have given, each unknown with the reason (never a guess)."""
    if reason is None:
        return facts
    return [dataclasses.replace(f, value=None, unknown=reason) for f in facts]


def main_loop_text(text: str, module: KernelModule) -> str | None:
    loop = module.main_loop
    if loop is None:
        return None
    return "\n".join(text.split("\n")[loop.start_line - 1:loop.end_line])


@dataclass(frozen=True)
class IrStages:
    """The TTIR and TTGIR, parsed once for the IR facts and the per-loop facts; `*_missing` says why a
    stage is absent (its module is then the parse of an empty text)."""

    ttir: Any
    ttir_missing: str | None
    ttgir: Any
    ttgir_missing: str | None
    glir: Any = None  # a Gluon kernel's own first IR (the kernel as written); None for a Triton kernel

    @classmethod
    def of(cls, result: Build) -> IrStages:
        from ttinspect.dialects.mlir import parse_mlir  # a big parser: only where facts are computed

        ttir, ttir_missing = stage_text(result, "ttir")
        ttgir, ttgir_missing = stage_text(result, "ttgir")
        glir = parse_mlir(result.artifacts.text("glir"), stage="ttgir") if result.artifacts.has("glir") else None
        return cls(parse_mlir(ttir, stage="ttir"), ttir_missing, parse_mlir(ttgir, stage="ttgir"), ttgir_missing,
                   glir)

    def facts(self, result: Build) -> list[Fact]:
        """The TTIR and TTGIR facts: the same for every vendor."""
        from ttinspect.facts.ir import ttgir_facts, ttir_facts  # only where facts are computed (not warm)

        # Triton 3.3 names the kernel's arguments %arg0, %arg1, ... in the IR; later versions by the
        # Python parameter names. The signature recorded at compile time gives the names back.
        signature = (result.metadata.get("ttinspect") or {}).get("signature") or {}
        arg_names = [name for name, ty in signature.items() if not str(ty).startswith("=")]
        facts = all_unknown(ttir_facts(self.ttir, arg_names), self.ttir_missing)
        facts += all_unknown(ttgir_facts(self.ttgir), self.ttgir_missing)
        if self.glir is not None:
            from ttinspect.facts.gluon import gluon_facts  # as above

            facts += all_unknown(gluon_facts(self.glir, self.ttgir), self.ttgir_missing)
        return facts

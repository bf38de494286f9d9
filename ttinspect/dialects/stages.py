"""The one table of stages. Like Triton's compiler (`stages[ext] = ...`), keyed by extension; SASS is
derived from the cubin only when somebody asks for it. Every text stage carries its dialect object
(`stage_dialects`): how its text is parsed, located, normalized, lexed and where its main loop is."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ttinspect.errors import UsageError

if TYPE_CHECKING:
    from ttinspect.dialects.stage_dialects import Dialect


@dataclass(frozen=True)
class Stage:
    name: str  # also the file extension in the cache and in `dump --all`
    title: str
    binary: bool
    comment: str  # line-comment prefix, for the header ttinspect prints above the text
    derived_from: str | None = None  # None: produced by triton.compile itself
    backend: str | None = None  # "cuda" or "hip": the one vendor whose compile produces it; None: both
    dialect_name: str | None = None  # the name of its object in stage_dialects; None for a binary stage
    language: str | None = None  # "triton" or "gluon": the one kernel language whose compile has it; None: both

    @property
    def dialect(self) -> Dialect | None:
        if self.dialect_name is None:
            return None
        # loaded on first use: a warm command that only reads cached facts never parses a stage
        from ttinspect.dialects import stage_dialects

        return getattr(stage_dialects, self.dialect_name)


STAGES: dict[str, Stage] = {s.name: s for s in (
    Stage("ttir", "Triton IR (MLIR, target independent)", False, "//", dialect_name="TTIR", language="triton"),
    # A Gluon kernel starts one level down: its first IR is TritonGPU IR with the layouts its author wrote
    Stage("glir", "Gluon IR (TritonGPU IR as the Gluon kernel wrote it, before Triton's passes)", False, "//",
          dialect_name="TTGIR", language="gluon"),
    Stage("ttgir", "TritonGPU IR (MLIR, with layouts)", False, "//", dialect_name="TTGIR"),
    Stage("llir", "LLVM IR", False, ";", dialect_name="LLIR"),
    Stage("ptx", "PTX", False, "//", backend="cuda", dialect_name="PTX"),
    Stage("cubin", "CUDA binary (ELF)", True, "", backend="cuda"),
    Stage("sass", "SASS (disassembled cubin)", False, "//", derived_from="cubin", backend="cuda", dialect_name="SASS"),
    Stage("amdgcn", "AMDGCN assembly (LLVM's AMDGPU backend)", False, ";", backend="hip", dialect_name="AMDGCN"),
    Stage("hsaco", "AMD code object (ELF)", True, "", backend="hip"),
)}
# `--stage asm`: the target's assembly, whichever vendor.
ASM = {"cuda": "ptx", "hip": "amdgcn"}
_VENDOR = {"cuda": "NVIDIA", "hip": "AMD"}

# What triton.compile produces (its `asm` dict); the rest is derived.
COMPILED = tuple(name for name, s in STAGES.items() if s.derived_from is None)
TEXT_STAGES = tuple(name for name, s in STAGES.items() if not s.binary)
# The stages with a dialect: those with source lines, a main loop, highlighting.
DIALECT_STAGES = tuple(name for name, s in STAGES.items() if s.dialect_name is not None)


def dialect_of(name: str) -> Dialect | None:
    """The dialect object of stage `name` (its own name, no alias), None for a binary or unknown stage."""
    stage = STAGES.get(name)
    return stage.dialect if stage is not None else None


def get_stage(name: str, *, text_only: bool = False) -> Stage:
    valid = TEXT_STAGES if text_only else tuple(STAGES)
    if name == "asm":
        raise UsageError("stage 'asm' names the target's assembly (ptx or amdgcn): resolve it with for_target")
    if name not in valid:
        raise UsageError(f"unknown stage {name!r}; valid: {', '.join(valid)}")
    return STAGES[name]


def missing_for_language(name: str, present: Callable[[str], bool]) -> str | None:
    """Why a build lacks stage `name` when its kernel's language has none (a Gluon kernel has no TTIR, a
    Triton kernel no Gluon IR), given which stages the build has; None otherwise."""
    stage = STAGES.get(name)
    if stage is None or stage.language is None:
        return None
    other = next((s for s in STAGES.values() if s.language not in (None, stage.language) and present(s.name)), None)
    if other is None:
        return None
    has = [n for n, s in STAGES.items() if s.language in (None, other.language) and not s.binary and present(n)]
    return (f"a {(other.language or '').title()} kernel has no {name.upper()}: its stages are {', '.join(has)} "
            f"(the first, {other.name}, is {other.title.split(' (')[0]})")


# "a Gluon kernel has no TTIR" (what missing_for_language's text, and the short form facts quote, begin with)
_LACKED = re.compile(r"a (%s) kernel has no [A-Z]+\b" % "|".join(
    sorted({s.language.title() for s in STAGES.values() if s.language})))


def lacked_by_language(reason: str | None) -> bool:
    """Whether `reason` (a missing stage's, or a fact's made unknown by one) is missing_for_language's: the
    kernel's language has no such stage."""
    return re.match(_LACKED, reason or "") is not None


def for_target(name: str, backend: str, target_name: str) -> str:
    """The stage `name` means for a target: `asm` becomes ptx or amdgcn; a stage only the other vendor's
    compile produces is refused in one line (`sass` for gfx942, `amdgcn` for sm_90)."""
    if name == "asm":
        return ASM[backend]
    stage = STAGES.get(name)
    if stage is not None and stage.backend not in (None, backend):
        own = [n for n, s in STAGES.items() if s.backend == backend and not s.binary]
        raise UsageError(f"{name} is an {_VENDOR[stage.backend]}-only stage and {target_name} is an "
                         f"{_VENDOR[backend]} target: its stages are ttir, ttgir, llir, {', '.join(own)} "
                         f"(--stage asm = {ASM[backend]})")
    return name

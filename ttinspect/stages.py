"""The one table of stages. Like Triton's compiler (`stages[ext] = ...`), keyed by extension; SASS is
derived from the cubin only when somebody asks for it."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import UsageError


@dataclass(frozen=True)
class Stage:
    name: str  # also the file extension in the cache and in `dump --all`
    title: str
    binary: bool
    comment: str  # line-comment prefix, for the header ttinspect prints above the text
    derived_from: str | None = None  # None: produced by triton.compile itself


STAGES: dict[str, Stage] = {s.name: s for s in (
    Stage("ttir", "Triton IR (MLIR, target independent)", False, "//"),
    Stage("ttgir", "TritonGPU IR (MLIR, with layouts)", False, "//"),
    Stage("llir", "LLVM IR", False, ";"),
    Stage("ptx", "PTX", False, "//"),
    Stage("cubin", "CUDA binary (ELF)", True, ""),
    Stage("sass", "SASS (disassembled cubin)", False, "//", derived_from="cubin"),
)}

# What triton.compile produces (its `asm` dict); the rest is derived.
COMPILED = tuple(name for name, s in STAGES.items() if s.derived_from is None)
TEXT_STAGES = tuple(name for name, s in STAGES.items() if not s.binary)


def get_stage(name: str, *, text_only: bool = False) -> Stage:
    valid = TEXT_STAGES if text_only else tuple(STAGES)
    if name not in valid:
        raise UsageError(f"unknown stage {name!r}; valid: {', '.join(valid)}")
    return STAGES[name]

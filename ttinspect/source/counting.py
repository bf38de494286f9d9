"""Instructions (ops) per line of the kernel's Python file, by opcode family (`by_line`).

The families are each dialect's (`ttinspect.dialects.families`: `ptx_family` for PTX and the PTX inside
LLVM IR's inline asm, the SASS opcode, the LLVM IR opcode or intrinsic, the MLIR op name). Pure, like
the line maps it counts over.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ttinspect.dialects.stages import STAGES
from ttinspect.source.attribution import attributed_lines, check_stage, strip_column


@dataclass(frozen=True)
class LineCount:
    """The instructions (ops) of one Python line, in all or in the main loop."""

    line: int | None  # kernel_file line; None: code attributed to no line of kernel_file
    count: int
    families: tuple[tuple[str, int], ...]  # ("mma", 16), ("ldmatrix", 8): most first, then by name
    text: str | None = None  # the Python line, stripped (when by_line was given source_text)
    sites: tuple[str, ...] = ()  # for line None: the locations the stage named, e.g. "standard.py:43"

    @property
    def breakdown(self) -> dict[str, int]:
        return dict(self.families)

    def family(self, name: str) -> int:
        return self.breakdown.get(name, 0)

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "count": self.count, "families": self.breakdown, "text": self.text,
                "sites": list(self.sites)}


def by_line(stage: str, text: str, kernel_file: str, *, loop_only: bool = False,
            source_text: str | None = None) -> tuple[LineCount, ...]:
    """Instructions (ops in TTIR/TTGIR) per line of kernel_file, with a breakdown by opcode family,
    sorted by line; one last entry with `line=None` gathers code attributed to no line (its `sites` say
    where the stage puts it). The counts add up to every instruction of the text (all functions), or,
    with `loop_only`, to those of the main loop as `ttinspect.dialects.main_loop` picks it (the innermost loop with
    tensor-core work, else the largest): their static count, i.e. per iteration. Returns () with
    `loop_only` for a kernel without a main loop.

    Families: PTX `mma`, `ldmatrix`, `cp.async`, `cp.async.wait_group`, `wgmma.mma_async`,
    `ld.global`, `st.shared`, `bar.sync`, ...; SASS the opcode (`HMMA`, `LDGSTS`, `LDSM`); LLVM IR the
    opcode, `asm <ptx family>` for inline asm and the intrinsic up to its type suffixes
    (`llvm.nvvm.ldmatrix`); TTIR/TTGIR the op name (`tt.dot`, `ttg.async_copy_global_to_local`).
    """
    stage = check_stage(stage)
    kernel_file = str(kernel_file)
    lines = attributed_lines(stage, text, kernel_file)
    dialect = STAGES[stage].dialect
    assert dialect is not None  # check_stage lets only the stages with a dialect through
    code = dialect.code_families(text, loop_only)
    if code is None:
        return ()
    source = source_text.split("\n") if source_text is not None else None
    per_line: dict[int | None, Counter] = {}
    sites: dict[int | None, dict[str, None]] = {}
    for line, family in code:
        att = lines[line - 1] if 0 < line <= len(lines) else None
        key = att.source_line if att is not None else None
        per_line.setdefault(key, Counter())[family] += 1
        if key is None:
            site = att.site if att is not None and att.site else "(no source location)"
            sites.setdefault(None, {})[strip_column(site)] = None
    out = []
    for key in sorted(per_line, key=lambda k: (k is None, k or 0)):
        counter = per_line[key]
        families = tuple(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))
        text_of = None
        if source is not None and key is not None and 0 < key <= len(source):
            text_of = source[key - 1].strip()
        out.append(LineCount(key, sum(counter.values()), families, text_of,
                             tuple(sites.get(key, {})) if key is None else ()))
    return tuple(out)

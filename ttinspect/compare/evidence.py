"""The lines that witness a fact: for a changed fact of a diff, where each side's compiled code shows it
(`ptx:412  cp.async.wait_group 2;`). Read from the build's stage texts, pure; a fact without a witness
here (a count, a metadata value) has none — the diff then explains without evidence, as before.

Which lines witness which fact is one table (stage, where, pattern): the main loop's lines for what the
loop does, the whole text for what the kernel does once. A fact both vendors have lists a witness per
vendor's stage (PTX or AMDGCN; the TTGIR's layout of either): the first whose stage the build has is read,
so an AMD side shows its `v_mfma` line rather than no line at all.
"""

from __future__ import annotations

import re

from ttinspect.dialects.main_loop import main_loop_slice

_MATRIX_OPS = ("amdgcn", "loop", re.compile(r"\bv_(mfma|wmma)_\w+"))  # AMD's tensor-core instructions

# fact key -> (stage, "loop" | "kernel", pattern), or several (one per vendor's stage). The pattern finds
# the instruction the fact counts.
Witness = tuple[str, str, re.Pattern[str]]
WITNESSES: dict[str, Witness | tuple[Witness, ...]] = {
    "pipeline_depth": ("ptx", "loop", re.compile(r"\bcp\.async\.wait_group\b|\bmbarrier\.try_wait\b")),
    "loop_wait_group": ("ptx", "loop", re.compile(r"\bcp\.async\.wait_group\b")),
    "loop_cp_async": ("ptx", "loop", re.compile(r"\bcp\.async\.c[ag]\b")),
    "loop_mma": ("ptx", "loop", re.compile(r"\bmma\.sync\b")),
    "loop_wgmma": ("ptx", "loop", re.compile(r"\bwgmma\.mma_async\b")),
    "tensor_core_path": (("ptx", "loop", re.compile(r"\b(mma\.sync|wgmma\.mma_async|tcgen05\.mma)\b")),
                         _MATRIX_OPS),
    "loop_tensor_core_ops": (("ptx", "loop", re.compile(r"\b(mma\.sync|wgmma\.mma_async|tcgen05\.mma)\b")),
                             _MATRIX_OPS),
    "tma_copies": ("ptx", "kernel", re.compile(r"\bcp\.async\.bulk\b")),
    "global_loads": ("ptx", "kernel", re.compile(r"\bld\.global\b")),
    "global_stores": ("ptx", "kernel", re.compile(r"\bst\.global\b")),
    "mma_version": ("ttgir", "kernel", re.compile(r"#ttg\.(nvidia_mma|amd_mfma|amd_wmma)<")),
    "shared_buffers": ("ttgir", "kernel", re.compile(r"\bttg\.local_alloc\b")),
    "spills": ("sass", "kernel", re.compile(r"\b(STL|LDL)\b")),
    "sass_loop_local_memory": ("sass", "loop", re.compile(r"\b(STL|LDL)\b")),
}


def witness(build, key: str, limit: int = 1) -> list[str]:
    """Up to `limit` lines of `build` that show fact `key`, each `stage:line  text`; [] when the fact
    has no witness here, the stage is missing, or the code has no such line."""
    entry = WITNESSES.get(key)
    if entry is None or build is None:
        return []
    for stage, where, pattern in (entry if isinstance(entry[0], tuple) else (entry,)):
        try:
            if build.artifacts.has(stage):
                return _lines(build, stage, where, pattern, limit)
        except Exception:  # a damaged or unreadable stage: no evidence, never a failed diff
            return []
    return []


def _lines(build, stage: str, where: str, pattern: re.Pattern[str], limit: int) -> list[str]:
    try:
        text = build.artifacts.text(stage)
    except Exception:  # a damaged or unreadable stage: no evidence, never a failed diff
        return []
    lines = text.split("\n")
    start, end = 1, len(lines)
    if where == "loop":
        try:
            found = main_loop_slice(stage, text)
        except Exception:
            return []
        if found.start_line is None:
            return []
        start, end = found.start_line, found.end_line
    out = []
    for number in range(start, end + 1):
        line = lines[number - 1]
        if pattern.search(line):
            out.append(f"{stage}:{number}  {' '.join(line.split())[:100]}")
            if len(out) >= limit:
                break
    return out

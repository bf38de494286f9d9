"""Instructions (ops) per line of the kernel's Python file, by opcode family (`by_line`).

The families: `ptx_family` for PTX (and the PTX inside LLVM IR's inline asm), the SASS opcode, the
LLVM IR opcode or intrinsic, the MLIR op name. Pure, like the line maps it counts over.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ttinspect.source.attribution import CONTAINER_OPS, MAPPERS, check_stage, strip_column


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
    lines = MAPPERS[stage](text, kernel_file)
    code = _COUNTERS[stage](text, loop_only)
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


# --------------------------------------------------------------------------------------------------
# per stage: the code lines to count, with their opcode family

PTX_SPACES = frozenset({"global", "shared", "local", "param", "const", "tex", "surf"})
# opcodes whose first modifier names a different instruction: wgmma.fence vs wgmma.mma_async
PTX_GROUPED = frozenset({"wgmma", "tcgen05", "mbarrier", "fence", "bar", "barrier", "elect",
                         "griddepcontrol", "cp", "membar", "redux", "vote", "match", "activemask",
                         "setmaxnreg", "clusterlaunchcontrol"})
PTX_CP_TAILS = frozenset({"commit_group", "wait_group", "wait_all", "bulk", "tensor", "mbarrier"})
# LLVM intrinsic name parts where the family stops: llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3
INTRINSIC_STOP_RE = re.compile(r"^(?:sync|aligned|shared\w*|global\w*|[a-z]{1,2}\d[\w]*|v\d+\w*)$")


def ptx_family(opcode: str, modifiers: Sequence[str] = ()) -> str:
    """`mma`, `ldmatrix`, `cp.async`, `cp.async.wait_group`, `wgmma.mma_async`, `ld.global`,
    `st.shared`, `bar.sync`, `mov`, ... from a PTX opcode and its modifiers."""
    if opcode == "cp" and modifiers:
        parts = [opcode]
        for m in modifiers:
            if m in ("async", "reduce") or m in PTX_CP_TAILS:
                parts.append(m)
            else:
                break
        return ".".join(parts)
    if opcode in PTX_GROUPED and modifiers:
        return f"{opcode}.{modifiers[0]}"
    if opcode in ("ld", "st", "atom", "red", "ldu", "prefetch", "cvta", "isspacep"):
        for m in modifiers:
            space = m.split("::", 1)[0]
            if space in PTX_SPACES:
                return f"{opcode}.{space}"
    return opcode


def _ptx_text_family(text: str) -> str | None:
    """The family of one PTX instruction written as text (`@$5 st.global.v4.b32 [...]`), or None."""
    s = text.strip()
    if s.startswith("@"):
        s = s.split(None, 1)[1] if " " in s else ""
    if not s or s[0] in "{}.$/" or s.endswith(":"):
        return None
    token = s.split(None, 1)[0].rstrip(";")
    if not re.match(r"^[a-z][\w.:]*$", token):
        return None
    parts = token.split(".")
    return ptx_family(parts[0], parts[1:])


def _llir_family(opcode: str, text: str) -> str:
    if opcode not in ("call", "invoke", "callbr"):
        return opcode
    if " asm " in text or "asm sideeffect" in text:
        from ttinspect.dialects.llir import ASM_RE

        m = ASM_RE.search(text)
        if m is None:
            return "asm"
        body = m[1].replace("\\0A", "\n").replace("\\09", "\t")
        found = [f for f in (_ptx_text_family(p) for p in re.split(r"[;\n]", body)) if f]
        main = next((f for f in found if f not in ("mov", "setp", "selp")), found[0] if found else None)
        return f"asm {main}" if main else "asm"
    m = re.search(r"@(llvm\.[\w.]+)\s*\(", text)
    if m:
        parts = m[1].split(".")
        keep = parts[:2]
        for part in parts[2:]:
            if INTRINSIC_STOP_RE.match(part):
                break
            keep.append(part)
        return ".".join(keep)
    return "call"


def _count_mlir(stage: str):
    def run(text: str, loop_only: bool) -> list[tuple[int, str]] | None:
        from ttinspect.dialects.main_loop import main_loop_slice
        from ttinspect.dialects.mlir import parse_mlir

        module = parse_mlir(text, stage=stage)
        ops = [op for op in module.ops if op.name not in CONTAINER_OPS]  # as in _map_mlir
        if loop_only:
            found = main_loop_slice(stage, text)
            if found.start_line is None:
                return None
            ops = [op for op in ops if found.start_line < op.line <= found.end_line]
        return [(op.line, op.name) for op in ops]

    return run


def _count_ptx(text: str, loop_only: bool) -> list[tuple[int, str]] | None:
    from ttinspect.dialects.ptx import parse_ptx

    return _count_kernel(parse_ptx(text), loop_only, lambda ins: ptx_family(ins.opcode, ins.modifiers))


def _count_llir(text: str, loop_only: bool) -> list[tuple[int, str]] | None:
    from ttinspect.dialects.llir import parse_llir

    return _count_kernel(parse_llir(text), loop_only, lambda ins: _llir_family(ins.opcode, ins.text))


def _count_sass(text: str, loop_only: bool) -> list[tuple[int, str]] | None:
    from ttinspect.dialects.sass import parse_sass

    return _count_kernel(parse_sass(text), loop_only, lambda ins: ins.opcode)


def _count_kernel(module: Any, loop_only: bool, family: Callable[[Any], str]) -> list[tuple[int, str]] | None:
    """(line, family) of every instruction of every function of a parsed PTX, LLVM IR or SASS module,
    or with `loop_only` of its kernel's main loop (None when it has none). The three parsers' modules
    and functions agree on `functions`, `kernel`, `main_loop`, `instructions` and `loop_instructions`."""
    if loop_only:
        kernel = module.kernel
        main = kernel.main_loop if kernel is not None else None
        if main is None:
            return None
        picked = kernel.loop_instructions(main.loop)
    else:
        picked = [ins for f in module.functions for ins in f.instructions]
    return [(ins.line, family(ins)) for ins in picked]


_COUNTERS = {"ttir": _count_mlir("ttir"), "ttgir": _count_mlir("ttgir"), "llir": _count_llir,
             "ptx": _count_ptx, "sass": _count_sass,
             "amdgcn": lambda text, loop_only: _count_amdgcn(text, loop_only)}


def _count_amdgcn(text: str, loop_only: bool) -> list[tuple[int, str]] | None:
    from ttinspect.source.amdgcn_lines import count_amdgcn

    return count_amdgcn(text, loop_only)


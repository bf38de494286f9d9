"""Per-line source locations of a stage's text: for each line, whether it is code (an instruction, an op)
and the location chain in effect for it, innermost first, as the dialect names it (`locations` has the
syntax). Which of those locations is the kernel's own line is for `ttinspect.source` to decide.

Only code lines carry a chain; directives, labels, comments, `.loc` lines, `}` closing lines and the
`module` / `tt.func` lines are not code. A code line without any location has the empty chain. Line
numbers are 1-based over `text.split("\\n")`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional

from ttinspect.dialects.locations import (AMDGCN_FILE_RE, AMDGCN_LOC_RE, CALLER_RE, DIFILE_RE, MLIR_FILE_RE,
                                          PTX_FILE_TABLE_RE, PTX_LOC_RE, SASS_INLINED_RE, SASS_MARK_RE)

if TYPE_CHECKING:  # only to name the types: the dialect object parses, with the one parser it needs
    from ttinspect.dialects.llir import LlModule
    from ttinspect.dialects.mlir import MlirModule
    from ttinspect.dialects.ptx import PtxModule

Chain = tuple[tuple[str, int, Optional[int]], ...]  # (path, line, column), innermost first

# ops that only hold others: not code (their loc is the def line)
CONTAINER_OPS = frozenset({"module", "builtin.module", "tt.func", "func.func", "llvm.func"})


@dataclass(frozen=True)
class SourceLine:
    """One line of a stage's text and where it comes from."""

    line: int  # 1-based
    code: bool = False  # an instruction / op, not a directive, label or comment
    chain: Chain = ()  # code lines: the location in effect, innermost first; () when it has none


@dataclass(frozen=True)
class LocatedText:
    lines: tuple[SourceLine, ...]  # one per line of the text
    paths: tuple[str, ...]  # the file paths the chains are written against (exact matching needs them)


# --- the files a stage names ----------------------------------------------------------------------------


def mlir_files(text: str) -> list[str]:
    return list(dict.fromkeys(MLIR_FILE_RE.findall(text)))


def llir_files(text: str) -> list[str]:
    found = [d + "/" + f if d and not f.startswith("/") else f for f, d in DIFILE_RE.findall(text)]
    return list(dict.fromkeys(found))


def ptx_files(text: str) -> list[str]:
    return list(dict.fromkeys(PTX_FILE_TABLE_RE.findall(text)))


def sass_files(text: str) -> list[str]:
    return list(dict.fromkeys(f for f, _ in SASS_MARK_RE.findall(text)))


def amdgcn_files(text: str) -> list[str]:
    out = []
    for _, first, second in AMDGCN_FILE_RE.findall(text):
        out.append(f"{first}/{second}" if second else first)
    return list(dict.fromkeys(out))


# --- the lines ------------------------------------------------------------------------------------------


def _not_code(text: str) -> list[SourceLine]:
    return [SourceLine(i) for i in range(1, len(text.split("\n")) + 1)]


def mlir_lines(text: str, module: MlirModule) -> LocatedText:
    out = _not_code(text)
    chains: dict[str | None, Chain] = {}
    for op in module.ops:
        if op.name in CONTAINER_OPS:
            continue
        if op.loc not in chains:
            loc = module.resolve(op.loc)
            chains[op.loc] = () if loc is None else tuple((s.file, s.line, s.col) for s in (loc.site, *loc.callers))
        out[op.line - 1] = SourceLine(op.line, True, chains[op.loc])
    return LocatedText(tuple(out), tuple(mlir_files(text)))


def llir_lines(text: str, module: LlModule) -> LocatedText:
    out = _not_code(text)
    chains: dict[int | None, Chain] = {}
    for function in module.functions:
        for ins in function.instructions:
            if ins.dbg not in chains:
                chain: list[tuple[str, int, Optional[int]]] = []
                loc = module.location(ins.dbg)
                while loc is not None and len(chain) < 64:
                    chain.append((loc.file or "", loc.line, loc.col))
                    loc = loc.inlined_at
                chains[ins.dbg] = tuple(chain)
            out[ins.line - 1] = SourceLine(ins.line, True, chains[ins.dbg])
    return LocatedText(tuple(out), tuple(llir_files(text)))


def ptx_lines(text: str, module: PtxModule) -> LocatedText:
    """The `.loc` in effect, in text order (reset at each function); `.loc` lines inside inline asm are
    Triton 3.9's, counted from the asm string: skipped."""
    files_table = module.files
    code: set[int] = set()
    starts: set[int] = set()
    for function in module.functions:
        starts.add(function.header_line)
        code.update(function.instruction(i).line for i in range(len(function)))
    out: list[SourceLine] = []
    parents: dict[tuple[int, int, int], tuple[int, int, int]] = {}  # 3.9: a site -> where it was inlined
    current: Chain = ()
    in_asm = False
    for no, raw in enumerate(text.split("\n"), 1):
        if no in starts:
            current, in_asm = (), False
        if no in code:
            out.append(SourceLine(no, True, current))
            continue
        out.append(SourceLine(no))
        s = raw.lstrip()
        if s.startswith("//"):
            if s.startswith("// begin inline asm"):
                in_asm = True
            elif s.startswith("// end inline asm"):
                in_asm = False
            continue
        if in_asm or not s.startswith(".loc"):
            continue
        m = PTX_LOC_RE.match(s)
        if m is None:
            continue
        key = (int(m[1]), int(m[2]), int(m[3]))
        chain: list[tuple[str, int, Optional[int]]] = [(files_table.get(key[0], ""), key[1], key[2])]
        if m[4]:  # Triton 3.9: `, inlined_at F L C`; a nested call site had its own .loc before
            parent: tuple[int, int, int] | None = (int(m[4]), int(m[5]), int(m[6]))
            parents[key] = parent  # type: ignore[assignment]
            seen = {key}
            while parent is not None and parent not in seen and len(chain) < 64:
                seen.add(parent)
                chain.append((files_table.get(parent[0], ""), parent[1], parent[2]))
                parent = parents.get(parent)
        else:  # Triton 3.6: the chain is in LLVM's comment, callers by basename
            comment = s.find("//")
            if comment >= 0:
                chain.extend((f, int(ln), int(c)) for f, ln, c in CALLER_RE.findall(s[comment:]))
        current = tuple(chain)
    return LocatedText(tuple(out), tuple(files_table.values()))


def _marked(text: str, module: Any, chain_of: Callable[[str], Chain | None]) -> tuple[SourceLine, ...]:
    """Assembly whose source lines are marks between instructions (SASS `//##`, AMDGCN `.loc`): each
    instruction line takes the last mark before it in its function; `chain_of(line)` reads a mark's
    inlining chain, None for a line that is not one."""
    code: set[int] = set()
    starts: set[int] = set()
    for function in module.functions:
        starts.add(function.start_line)
        code.update(ins.line for ins in function.instructions)
    out: list[SourceLine] = []
    current: Chain = ()
    for no, raw in enumerate(text.split("\n"), 1):
        if no in starts:
            current = ()
        if no in code:
            out.append(SourceLine(no, True, current))
            continue
        out.append(SourceLine(no))
        chain = chain_of(raw)
        if chain is not None:
            current = chain
    return tuple(out)


def sass_lines(text: str, module: Any) -> LocatedText:
    def chain(raw: str) -> Chain | None:
        m = SASS_MARK_RE.search(raw) if "//##" in raw else None
        if m is None:
            return None
        return ((m[1], int(m[2]), None), *((f, int(ln), None) for f, ln in SASS_INLINED_RE.findall(raw[m.end():])))

    return LocatedText(_marked(text, module, chain), tuple(sass_files(text)))


def amdgcn_lines(text: str, module: Any) -> LocatedText:
    """LLVM's AsmPrinter writes a `.loc` before the instructions it covers, the inlining chain only in
    its comment (callers by basename, as in Triton 3.6's PTX); `.file` names directory and file apart."""
    table = {int(n): (f"{a}/{b}" if b else a) for n, a, b in AMDGCN_FILE_RE.findall(text)}

    def chain(raw: str) -> Chain | None:
        m = AMDGCN_LOC_RE.match(raw)
        if m is None:
            return None
        found: list[tuple[str, int, Optional[int]]] = [(table.get(int(m[1]), ""), int(m[2]), int(m[3]))]
        comment = raw.find(";")
        if comment >= 0:
            found.extend((f, int(ln), int(c)) for f, ln, c in CALLER_RE.findall(raw[comment:]))
        return tuple(found)

    return LocatedText(_marked(text, module, chain), tuple(table.values()))

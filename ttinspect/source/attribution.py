"""Line maps: for each line of a stage's text, the line of the kernel's Python file it comes from.

Every stage names its source locations its own way; this module reads them all and reduces each to one
line of the kernel file (`kernel_file`):

    ttir, ttgir  `op ... loc(#loc42)` with `#loc42 = loc(callsite(#loc7 at #loc30))` chains
                 (name, callsite and fused locations), resolved by `MlirModule.resolve`
    llir         `!dbg !N` -> `!DILocation(line:, column:, scope:, inlinedAt: !M)` chains
    ptx          `.loc FILE LINE COL` in effect (text order), the `.file N "path"` table; Triton 3.9
                 adds `, inlined_at F L C` to the directive (a nested call site gets its own `.loc`
                 with its own `inlined_at` just before), 3.6 writes the chain only in LLVM's comment:
                 `// standard.py:43:17 @[ doc003.py:63:27 @[ ... ] ]` (callers by basename)
    sass         nvdisasm's `//## File "path", line N` marks; with `nvdisasm -gi` inlined code gets
                 `//## File "standard.py", line 43 inlined at "k.py", line 63` (then the outer marks)

Inlined code (Triton's `standard.py` / `core.py` behind `tl.cdiv`, a `@triton.jit` helper) is
attributed to the *outermost* location of its call chain that lies in `kernel_file`: the kernel line
that led there. Paths are compared exactly when the text names `kernel_file`'s full path anywhere, else
by basename (artifacts compiled on another machine; 3.6's PTX comments name callers by basename only).
Code whose chain never reaches `kernel_file` keeps its `site` (e.g. `standard.py:43` in SASS printed by
`nvdisasm -g`, which drops the call sites) and gets `source_line=None`.

Only *code* lines (instructions, ops) are attributed; directives, labels, comments, `.loc` lines,
`}` closing lines and the `module` / `tt.func` lines get `source_line=None` and `code=False`.
Line numbers are 1-based over `text.split("\\n")`, as in `ttinspect.dialects.main_loop`.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, Sequence

from ttinspect.errors import UsageError
from ttinspect.dialects.stages import get_stage

SOURCE_STAGES = ("ttir", "ttgir", "llir", "ptx", "sass", "amdgcn")

# 	.loc	2 43 17                         // standard.py:43:17 @[ doc003.py:63:27 @[ k.py:9:4 ] ]
PTX_LOC_RE = re.compile(r"\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:[^/]*?inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?")
PTX_CALLER_RE = re.compile(r"@\[\s*([^\s@\]]+?):(\d+):(\d+)")
# 	//## File "/work/venv39/.../standard.py", line 43 inlined at "/work/main/kernels/doc003.py", line 64
SASS_MARK_RE = re.compile(r'//##\s*File\s+"([^"]*)",\s*line\s+(\d+)')
SASS_INLINED_RE = re.compile(r'inlined at\s+"([^"]*)",\s*line\s+(\d+)')
# !1 = !DIFile(filename: "doc003.py", directory: "/work/main/kernels")
DIFILE_RE = re.compile(r'!DIFile\(filename:\s*"([^"]*)",\s*directory:\s*"([^"]*)"')
# "/work/main/kernels/doc003.py":84:15   (an MLIR file location)
MLIR_FILE_RE = re.compile(r'loc\("((?:[^"\\]|\\.)*)":\d+:\d+')

# why a stage text has no location at all
NO_LOCATIONS = {
    "ttir": "no op of this TTIR has a file location (only loc(unknown) and bare names): compiled with "
            "TRITON_DISABLE_LINE_INFO=1?",
    "ttgir": "no op of this TTGIR has a file location (only loc(unknown) and bare names): compiled with "
             "TRITON_DISABLE_LINE_INFO=1?",
    "llir": "no instruction of this LLVM IR has !dbg debug info: compiled with TRITON_DISABLE_LINE_INFO=1?",
    "ptx": "this PTX has no .loc directives: compiled with TRITON_DISABLE_LINE_INFO=1?",
    "sass": "this SASS has no //## File line marks: a cubin without line info (TRITON_DISABLE_LINE_INFO=1), "
            "or disassembled by cuobjdump or by nvdisasm without -g",
    "amdgcn": "this AMDGCN assembly has no .loc directives: compiled with TRITON_DISABLE_LINE_INFO=1?",
}

# ops that only hold others: not counted by `by_line`
CONTAINER_OPS = frozenset({"module", "builtin.module", "tt.func", "func.func", "llvm.func"})


@dataclass(frozen=True)
class LineAttribution:
    """Where one line of a stage's text comes from."""

    line: int  # 1-based line in the stage text
    source_line: int | None  # line in kernel_file; None: not code, no location, or outside kernel_file
    column: int | None = None  # column of that location (None where the stage has none: SASS)
    site: str | None = None  # the location the stage itself names, innermost: "standard.py:43:17"
    inlined: bool = False  # source_line is a call site: the code comes from a function inlined there
    code: bool = False  # an instruction / op (what by_line counts), not a directive, label or comment

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "source_line": self.source_line, "column": self.column,
                "site": self.site, "inlined": self.inlined, "code": self.code}


@dataclass(frozen=True)
class SourceInfo:
    """`line_map` and what to say about it: how much of the code was attributed, and why not."""

    stage: str
    kernel_file: str
    lines: tuple[LineAttribution, ...]
    code_lines: int  # instructions / ops in the text
    attributed: int  # of them, with a source_line
    files: tuple[str, ...]  # the source files the stage names, as it names them
    unresolved: tuple[tuple[str, int], ...] = ()  # ("standard.py:43", 8): located, not in kernel_file
    reason: str | None = None  # set when nothing could be attributed: why
    notes: tuple[str, ...] = ()  # partial attribution: what was left out and why

    def as_dict(self) -> dict[str, Any]:
        return {"stage": self.stage, "kernel_file": self.kernel_file, "code_lines": self.code_lines,
                "attributed": self.attributed, "files": list(self.files),
                "unresolved": dict(self.unresolved), "reason": self.reason, "notes": list(self.notes)}


# --------------------------------------------------------------------------------------------------
# public functions


def line_map(stage: str, text: str, kernel_file: str) -> tuple[LineAttribution, ...]:
    """For each line of `text` (1-based, `text.split("\\n")`), the line of `kernel_file` it comes from.

    Inlined code is attributed to the outermost call site inside kernel_file. Never raises for a text
    without locations (all `source_line` None; `source_info(...).reason` says why); raises ParseError
    for text the stage's parser cannot read and UsageError for a stage without source lines (cubin).
    """
    return source_info(stage, text, kernel_file).lines


def source_info(stage: str, text: str, kernel_file: str) -> SourceInfo:
    """`line_map` with a summary: counts, the files named, unresolved sites and the reason for none."""
    stage = check_stage(stage)
    kernel_file = str(kernel_file)
    lines = MAPPERS[stage](text, kernel_file)
    return _summarise(stage, text, kernel_file, lines)


# --------------------------------------------------------------------------------------------------
# shared pieces

Chain = Sequence[tuple[str, int, Optional[int]]]  # (path, line, column), innermost first


class _Files:
    """Which paths are kernel_file: exact (normalised) paths when the text names kernel_file's full
    path anywhere, else the basename; a basename-only path (3.6's PTX comments) by basename always."""

    def __init__(self, kernel_file: str, named: Iterable[str]):
        self.path = _norm(kernel_file)
        self.base = posixpath.basename(self.path)
        self.exact = any(_norm(p) == self.path for p in named) and "/" in self.path

    def __contains__(self, path: str | None) -> bool:
        if not path:
            return False
        norm = _norm(path)
        if norm == self.path:
            return True
        if posixpath.basename(norm) != self.base:
            return False
        return "/" not in norm or not self.exact


def _norm(path: str) -> str:
    path = path.replace("\\", "/")
    return posixpath.normpath(path) if path else path


def _site(path: str | None, line: int, col: int | None) -> str:
    name = posixpath.basename((path or "?").replace("\\", "/"))
    return f"{name}:{line}" if col is None else f"{name}:{line}:{col}"


def strip_column(site: str) -> str:
    """`standard.py:43:17` -> `standard.py:43`: how sites are grouped and shown."""
    parts = site.rsplit(":", 2)
    return f"{parts[0]}:{parts[1]}" if len(parts) == 3 and parts[2].isdigit() else site


def _attribute(no: int, chain: Chain, files: _Files) -> LineAttribution:
    """A code line with its location chain (innermost first): the outermost element in kernel_file."""
    if not chain or chain[0][1] <= 0:  # line 0: LLVM's "compiler-generated, no line"
        return LineAttribution(no, None, code=True)
    path, line, col = chain[0]
    site = _site(path, line, col)
    for depth in range(len(chain) - 1, -1, -1):
        p, ln, c = chain[depth]
        if p in files and ln > 0:
            return LineAttribution(no, ln, c, site, depth > 0, True)
    return LineAttribution(no, None, None, site, False, True)


def check_stage(stage: str) -> str:
    """The stage's own name (aliases resolved); UsageError for a stage without source lines."""
    stage = get_stage(stage, text_only=True).name
    if stage not in SOURCE_STAGES:
        raise UsageError(f"no source lines in stage {stage!r}; use one of {', '.join(SOURCE_STAGES)}")
    return stage


def _summarise(stage: str, text: str, kernel_file: str, lines: tuple[LineAttribution, ...]) -> SourceInfo:
    code = [a for a in lines if a.code]
    attributed = sum(a.source_line is not None for a in code)
    unresolved = Counter(strip_column(a.site) for a in code if a.source_line is None and a.site)
    located = sum(1 for a in code if a.site)
    files = _named_files(stage, text)
    name = posixpath.basename(_norm(kernel_file))
    reason = None
    notes: list[str] = []
    if not code:
        reason = f"the {stage} text has no {'ops' if stage in ('ttir', 'ttgir') else 'instructions'}"
    elif not located:
        reason = NO_LOCATIONS[stage]
    elif not attributed:
        named = ", ".join(posixpath.basename(_norm(f)) for f in files) or "none"
        reason = (f"none of its {located} located {_plural(stage, located)} come{'s' * (located == 1)} from "
                  f"{name} (files named: {named})")
    else:
        left = len(code) - attributed
        if unresolved:
            where = ", ".join(f"{s} ({n})" for s, n in unresolved.most_common(4))
            hint = (" (nvdisasm -g drops inlining; nvdisasm -gi keeps the call sites)"
                    if stage == "sass" else "")
            count = sum(unresolved.values())
            notes.append(f"{count} {_plural(stage, count)} come{'s' * (count == 1)} from outside {name} "
                         f"without a call site in it: {where}{hint}")
        bare = left - sum(unresolved.values())
        if bare:
            verb = "carries" if bare == 1 else "carry"
            notes.append(f"{bare} {_plural(stage, bare)} {verb} no source location")
    return SourceInfo(stage, kernel_file, lines, len(code), attributed, tuple(files),
                      tuple(unresolved.most_common()), reason, tuple(notes))


def _plural(stage: str, count: int = 2) -> str:
    word = "op" if stage in ("ttir", "ttgir") else "instruction"
    return word if count == 1 else word + "s"


def _named_files(stage: str, text: str) -> list[str]:
    if stage == "amdgcn":
        from ttinspect.source.amdgcn_lines import named_files

        return named_files(text)
    if stage == "ptx":
        found = re.findall(r'^\s*\.file\s+\d+\s+"((?:[^"\\]|\\.)*)"', text, re.M)
    elif stage == "sass":
        found = SASS_MARK_RE.findall(text)
        found = [f for f, _ in found]
    elif stage == "llir":
        found = [d + "/" + f if d and not f.startswith("/") else f for f, d in DIFILE_RE.findall(text)]
    else:
        found = MLIR_FILE_RE.findall(text)
    return list(dict.fromkeys(found))


# --------------------------------------------------------------------------------------------------
# per stage: line maps


def _map_mlir(stage: str) -> Callable[[str, str], tuple[LineAttribution, ...]]:
    def run(text: str, kernel_file: str) -> tuple[LineAttribution, ...]:
        from ttinspect.dialects.mlir import parse_mlir

        module = parse_mlir(text, stage=stage)
        n = len(text.split("\n"))
        files = _Files(kernel_file, _named_files(stage, text))
        out: list[LineAttribution] = [LineAttribution(i, None) for i in range(1, n + 1)]
        cache: dict[str | None, LineAttribution] = {}
        for op in module.ops:
            if op.name in CONTAINER_OPS:  # module, tt.func: not code (their loc is the def line)
                continue
            if op.loc not in cache:
                loc = module.resolve(op.loc)
                chain = [] if loc is None else [(s.file, s.line, s.col) for s in (loc.site, *loc.callers)]
                cache[op.loc] = _attribute(0, chain, files)
            a = cache[op.loc]
            out[op.line - 1] = LineAttribution(op.line, a.source_line, a.column, a.site, a.inlined, True)
        return tuple(out)

    return run


def _map_llir(text: str, kernel_file: str) -> tuple[LineAttribution, ...]:
    from ttinspect.dialects.llir import parse_llir

    module = parse_llir(text)
    n = len(text.split("\n"))
    files = _Files(kernel_file, _named_files("llir", text))
    out: list[LineAttribution] = [LineAttribution(i, None) for i in range(1, n + 1)]
    cache: dict[int | None, LineAttribution] = {}
    for function in module.functions:
        for ins in function.instructions:
            if ins.dbg not in cache:
                chain: list[tuple[str, int, int]] = []  # (file, line, column), innermost first
                loc = module.location(ins.dbg)
                while loc is not None and len(chain) < 64:
                    chain.append((loc.file or "", loc.line, loc.col))
                    loc = loc.inlined_at
                cache[ins.dbg] = _attribute(0, chain, files)
            a = cache[ins.dbg]
            out[ins.line - 1] = LineAttribution(ins.line, a.source_line, a.column, a.site, a.inlined, True)
    return tuple(out)


def _map_ptx(text: str, kernel_file: str) -> tuple[LineAttribution, ...]:
    from ttinspect.dialects.ptx import parse_ptx

    module = parse_ptx(text)
    lines = text.split("\n")
    files_table = module.files
    files = _Files(kernel_file, files_table.values())
    code: set[int] = set()
    starts: set[int] = set()
    for function in module.functions:
        starts.add(function.header_line)
        code.update(function.instruction(i).line for i in range(len(function)))
    out: list[LineAttribution] = []
    parents: dict[tuple[int, int, int], tuple[int, int, int]] = {}  # 3.9: a site -> where it was inlined
    current: LineAttribution | None = None
    in_asm = False
    for no, raw in enumerate(lines, 1):
        if no in starts:
            current, in_asm = None, False
        if no in code:
            a = current
            out.append(LineAttribution(no, a.source_line, a.column, a.site, a.inlined, True)
                       if a is not None else LineAttribution(no, None, code=True))
            continue
        out.append(LineAttribution(no, None))
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
        chain = [(files_table.get(key[0], ""), key[1], key[2])]
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
                chain.extend((f, int(ln), int(c)) for f, ln, c in PTX_CALLER_RE.findall(s[comment:]))
        current = _attribute(no, chain, files)
    return tuple(out)


def _map_sass(text: str, kernel_file: str) -> tuple[LineAttribution, ...]:
    from ttinspect.dialects.sass import parse_sass

    def chain(raw: str) -> Chain | None:
        m = SASS_MARK_RE.search(raw) if "//##" in raw else None
        if m is None:
            return None
        return [(m[1], int(m[2]), None), *((f, int(ln), None) for f, ln in SASS_INLINED_RE.findall(raw[m.end():]))]

    return walk_marked(text, parse_sass(text), _Files(kernel_file, _named_files("sass", text)), chain)


def walk_marked(text: str, module: Any, files: _Files,
                chain_of: Callable[[str], Chain | None]) -> tuple[LineAttribution, ...]:
    """Assembly whose source lines are marks between instructions (SASS `//##`, AMDGCN `.loc`): each
    instruction line takes the last mark before it in its function; `chain_of(line)` reads a mark's
    inlining chain, None for a line that is not one."""
    code: set[int] = set()
    starts: set[int] = set()
    for function in module.functions:
        starts.add(function.start_line)
        code.update(ins.line for ins in function.instructions)
    out: list[LineAttribution] = []
    current: LineAttribution | None = None
    for no, raw in enumerate(text.split("\n"), 1):
        if no in starts:
            current = None
        if no in code:
            a = current
            out.append(LineAttribution(no, a.source_line, a.column, a.site, a.inlined, True)
                       if a is not None else LineAttribution(no, None, code=True))
            continue
        out.append(LineAttribution(no, None))
        chain = chain_of(raw)
        if chain is not None:
            current = _attribute(no, chain, files)
    return tuple(out)

MAPPERS: dict[str, Callable[[str, str], tuple[LineAttribution, ...]]] = {
    "ttir": _map_mlir("ttir"), "ttgir": _map_mlir("ttgir"), "llir": _map_llir, "ptx": _map_ptx,
    "sass": _map_sass, "amdgcn": lambda text, kernel_file: _map_amdgcn(text, kernel_file),
}


def _map_amdgcn(text: str, kernel_file: str) -> tuple[LineAttribution, ...]:
    from ttinspect.source.amdgcn_lines import map_amdgcn  # a module of its own; it imports this one

    return map_amdgcn(text, kernel_file)

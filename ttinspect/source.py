"""Source attribution: which line of the kernel's Python file each line of a stage comes from.

Every stage names its source locations its own way; this module reads them all and reduces each to one
line of the kernel file (`kernel_file`), so that a stage can be shown `objdump -S`-style
(`interleave`) and its instructions counted per Python line (`by_line`):

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
Line numbers are 1-based over
`text.split("\\n")`, as in `ttinspect.loops`.

Everything here is pure: no subprocess, no triton, no file reading. The caller reads the kernel's
Python source and passes it as text to `interleave`.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, Sequence

from .errors import UsageError
from .stages import get_stage

SOURCE_STAGES = ("ttir", "ttgir", "llir", "ptx", "sass")

# What interleave puts after the stage's comment prefix, so inserted lines are recognisable: `//> `.
MARK = "> "

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
    stage = _check_stage(stage)
    kernel_file = str(kernel_file)
    lines = _MAPPERS[stage](text, kernel_file)
    return _summarise(stage, text, kernel_file, lines)


def interleave(stage: str, text: str, kernel_file: str, source_text: str, *, start_line: int = 1,
               end_line: int | None = None) -> str:
    """`text` (lines start_line..end_line, 1-based inclusive; all by default) with the Python line
    printed as a comment before each code line whose attributed line differs from the previous code
    line's, like `objdump -S`:

        //> doc003.py:84: acc = tl.dot(a, b, acc)

    in the stage's comment syntax (`;>` for llir), indented like the line it precedes. Code from
    outside kernel_file without a call site in it gets `//> standard.py:43 (no call site in
    doc003.py)`, code without any location `//> (no source location)`. Lines without code never
    change the line in effect. Every original line is kept, in order: `strip_interleaved` gives the
    original text back. A text without any location gets one leading comment saying why.
    """
    info = source_info(stage, text, kernel_file)
    prefix = get_stage(stage).comment + MARK
    name = posixpath.basename(kernel_file.replace("\\", "/"))
    source = source_text.split("\n")
    lines = text.split("\n")
    last = len(lines) if end_line is None else min(end_line, len(lines))
    first = max(start_line, 1)
    out: list[str] = []
    if info.reason is not None:
        out.append(f"{prefix}no source attribution: {info.reason}")
    current: object = None
    for no in range(first, last + 1):
        raw = lines[no - 1]
        att = info.lines[no - 1]
        if att.code and info.reason is None:
            key = att.source_line if att.source_line is not None else (att.site or "")
            if key != current:
                current = key
                indent = raw[:len(raw) - len(raw.lstrip())]
                out.append(indent + prefix + _describe(att, name, source))
        out.append(raw)
    return "\n".join(out)


def strip_interleaved(stage: str, text: str) -> str:
    """Undo `interleave`: drop the lines it inserted (those starting, after indentation, with `//> `
    or `;> `)."""
    prefix = get_stage(stage).comment + MARK
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith(prefix))


def by_line(stage: str, text: str, kernel_file: str, *, loop_only: bool = False,
            source_text: str | None = None) -> tuple[LineCount, ...]:
    """Instructions (ops in TTIR/TTGIR) per line of kernel_file, with a breakdown by opcode family,
    sorted by line; one last entry with `line=None` gathers code attributed to no line (its `sites` say
    where the stage puts it). The counts add up to every instruction of the text (all functions), or,
    with `loop_only`, to those of the main loop as `ttinspect.loops` picks it (the innermost loop with
    tensor-core work, else the largest): their static count, i.e. per iteration. Returns () with
    `loop_only` for a kernel without a main loop.

    Families: PTX `mma`, `ldmatrix`, `cp.async`, `cp.async.wait_group`, `wgmma.mma_async`,
    `ld.global`, `st.shared`, `bar.sync`, ...; SASS the opcode (`HMMA`, `LDGSTS`, `LDSM`); LLVM IR the
    opcode, `asm <ptx family>` for inline asm and the intrinsic up to its type suffixes
    (`llvm.nvvm.ldmatrix`); TTIR/TTGIR the op name (`tt.dot`, `ttg.async_copy_global_to_local`).
    """
    stage = _check_stage(stage)
    kernel_file = str(kernel_file)
    lines = _MAPPERS[stage](text, kernel_file)
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
            sites.setdefault(None, {})[_strip_column(site)] = None
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


def _strip_column(site: str) -> str:
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


def _describe(att: LineAttribution, name: str, source: list[str]) -> str:
    if att.source_line is not None:
        if 0 < att.source_line <= len(source):
            return f"{name}:{att.source_line}: {source[att.source_line - 1].strip()}"
        return f"{name}:{att.source_line}: (past the end of the source given)"
    if att.site:
        return f"{_strip_column(att.site)} (no call site in {name})"
    return "(no source location)"


def _check_stage(stage: str) -> str:
    stage = get_stage(stage, text_only=True).name
    if stage not in SOURCE_STAGES:
        raise UsageError(f"no source lines in stage {stage!r}; use one of {', '.join(SOURCE_STAGES)}")
    return stage


def _summarise(stage: str, text: str, kernel_file: str, lines: tuple[LineAttribution, ...]) -> SourceInfo:
    code = [a for a in lines if a.code]
    attributed = sum(a.source_line is not None for a in code)
    unresolved = Counter(_strip_column(a.site) for a in code if a.source_line is None and a.site)
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
        from .parse.mlir import parse_mlir

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
    from .parse.llir import parse_llir

    module = parse_llir(text)
    n = len(text.split("\n"))
    files = _Files(kernel_file, _named_files("llir", text))
    out: list[LineAttribution] = [LineAttribution(i, None) for i in range(1, n + 1)]
    cache: dict[int | None, LineAttribution] = {}
    for function in module.functions:
        for ins in function.instructions:
            if ins.dbg not in cache:
                chain = []
                loc = module.location(ins.dbg)
                while loc is not None and len(chain) < 64:
                    chain.append((loc.file or "", loc.line, loc.col))
                    loc = loc.inlined_at
                cache[ins.dbg] = _attribute(0, chain, files)
            a = cache[ins.dbg]
            out[ins.line - 1] = LineAttribution(ins.line, a.source_line, a.column, a.site, a.inlined, True)
    return tuple(out)


def _map_ptx(text: str, kernel_file: str) -> tuple[LineAttribution, ...]:
    from .parse.ptx import parse_ptx

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
    from .parse.sass import parse_sass

    module = parse_sass(text)
    files = _Files(kernel_file, _named_files("sass", text))
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
        if "//##" in raw:
            m = SASS_MARK_RE.search(raw)
            if m is not None:
                chain = [(m[1], int(m[2]), None)]
                chain.extend((f, int(ln), None) for f, ln in SASS_INLINED_RE.findall(raw[m.end():]))
                current = _attribute(no, chain, files)
    return tuple(out)


_MAPPERS: dict[str, Callable[[str, str], tuple[LineAttribution, ...]]] = {
    "ttir": _map_mlir("ttir"), "ttgir": _map_mlir("ttgir"), "llir": _map_llir, "ptx": _map_ptx,
    "sass": _map_sass,
}


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
        from .parse.llir import ASM_RE

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
        from .loops import main_loop_slice
        from .parse.mlir import parse_mlir

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
    from .parse.ptx import parse_ptx

    module = parse_ptx(text)
    if loop_only:
        function = module.kernel
        main = function.main_loop if function is not None else None
        if main is None:
            return None
        picked = [function.instruction(i) for i in function.cfg.loop_instructions(main.loop)]
    else:
        picked = [f.instruction(i) for f in module.functions for i in range(len(f))]
    return [(ins.line, ptx_family(ins.opcode, ins.modifiers)) for ins in picked]


def _count_llir(text: str, loop_only: bool) -> list[tuple[int, str]] | None:
    from .parse.llir import parse_llir

    module = parse_llir(text)
    if loop_only:
        function = module.kernel
        main = function.main_loop if function is not None else None
        if main is None:
            return None
        picked = function.loop_instructions(main.loop)
    else:
        picked = [ins for f in module.functions for ins in f.instructions]
    return [(ins.line, _llir_family(ins.opcode, ins.text)) for ins in picked]


def _count_sass(text: str, loop_only: bool) -> list[tuple[int, str]] | None:
    from .parse.sass import parse_sass

    module = parse_sass(text)
    if loop_only:
        function = module.kernel
        main = function.main_loop if function is not None else None
        if main is None:
            return None
        picked = function.loop_instructions(main.loop)
    else:
        picked = [ins for f in module.functions for ins in f.instructions]
    return [(ins.line, ins.opcode) for ins in picked]


_COUNTERS = {"ttir": _count_mlir("ttir"), "ttgir": _count_mlir("ttgir"), "llir": _count_llir,
             "ptx": _count_ptx, "sass": _count_sass}

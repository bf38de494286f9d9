"""Line maps: for each line of a stage's text, the line of the kernel's Python file it comes from.

Every stage names its source locations its own way; its dialect object reads them (`source_lines` in
`ttinspect.dialects`) and this module reduces each to one line of the kernel file (`kernel_file`):

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
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from ttinspect.dialects.source_lines import Chain
from ttinspect.dialects.stage_dialects import Dialect
from ttinspect.dialects.stages import DIALECT_STAGES, STAGES, get_stage
from ttinspect.errors import UsageError

SOURCE_STAGES = DIALECT_STAGES

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
    lines = attributed_lines(stage, text, kernel_file)
    return _summarise(stage, text, kernel_file, lines)


def attributed_lines(stage: str, text: str, kernel_file: str) -> tuple[LineAttribution, ...]:
    """`line_map` of a checked stage: each code line's location chain (from the stage's dialect)
    reduced to its outermost element in kernel_file."""
    located = _dialect(stage).source_lines(text)
    files = KernelFiles(kernel_file, located.paths)
    reduced: dict[Chain, LineAttribution] = {}
    out = []
    for line in located.lines:
        if not line.code:
            out.append(LineAttribution(line.line, None))
            continue
        a = reduced.get(line.chain)
        if a is None:
            a = reduced[line.chain] = _attribute(0, line.chain, files)
        out.append(LineAttribution(line.line, a.source_line, a.column, a.site, a.inlined, True))
    return tuple(out)


# --------------------------------------------------------------------------------------------------
# shared pieces

class KernelFiles:
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


def _attribute(no: int, chain: Sequence[tuple[str, int, int | None]], files: KernelFiles) -> LineAttribution:
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


def _dialect(stage: str) -> Dialect:
    dialect = STAGES[stage].dialect
    assert dialect is not None  # check_stage lets only the stages with a dialect through
    return dialect


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
    files = _dialect(stage).named_files(text)
    name = posixpath.basename(_norm(kernel_file))
    reason = None
    notes: list[str] = []
    if not code:
        reason = f"the {stage} text has no {'ops' if stage in ('ttir', 'ttgir') else 'instructions'}"
    elif not located:
        reason = _dialect(stage).no_locations
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

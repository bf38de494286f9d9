"""TTIR and TTGIR (MLIR's generic text form as Triton prints it): ops, regions, loops, layouts, locations.

MLIR prints one op per line; an op with regions ends its line with `{` and each region closes on a line
starting with `}` (`} loc(#loc118)`, `} else {`, `}) : (tensor<1024xf32>) -> f32 loc(#loc42)`). An op's
location is printed after the whole op, so a `scf.for`'s `loc(...)` is on its closing line. Attribute
aliases head the module (`#blocked = #ttg.blocked<{...}>`); location aliases (`#loc3 = loc(...)`) head
or trail it and chain through name, callsite and fused locations.
"""

from __future__ import annotations

from bisect import bisect_right

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping

from ttinspect.dialects.locations import MLIR_TRAILING_LOC
from ttinspect.errors import ParseError

# #blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], ...}>
# #loc3 = loc("/work/venv36/lib/python3.11/site-packages/triton/language/standard.py":43:17)
ALIAS_RE = re.compile(r"^#([\w$.-]+)\s*=\s*(.*)$")
# #ttg.blocked<{sizePerThread = [1, 8], order = [1, 0]}>     /    #ttg.shared_memory
ATTRIBUTE_RE = re.compile(r"^#([\w.]+)(?:<\{?(.*?)\}?>)?$")
#     %acc_77:9 = scf.for %acc_88 = %c0_i32 to %1 step %c1_i32 iter_args(...) -> (...) {
#     %row_28 = "tt.reduce"(%row_27) <{axis = 0 : i32}> ({
#     tt.store %c_ptrs_87, %9, %8 : tensor<64x64x!tt.ptr<f16>, #blocked> loc(#loc54)
OP_RE = re.compile(r'^(?:(%[^=]*?)\s*=\s*)?(?:"([\w$.]+)"|([A-Za-z_][\w$.]*))')
# %acc_21:3 = scf.for ...      %x = tt.load %p, %m ...      (the first result, the op name, the rest)
DEFINITION_RE = re.compile(r'^\s*(%[\w$.-]+)(?::\d+)?(?:\s*,\s*%[\w$.-]+)*\s*=\s*"?([\w$.]+)"?\s*(.*)$')
#   tt.func public @matmul_kernel(%a_ptr: !tt.ptr<f16> ...
FUNCTION_NAME_RE = re.compile(r"@([\w$.]+)")
# "/tmp/t/k.py":3:0      (a file location inside loc(...))
FILE_LOC_RE = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')

# the named regions of ttg.warp_specialize:   default {    /    partition0(%arg1: i32) num_warps(4) {
REGION_LABEL_RE = re.compile(r"^(?:default|partition\d+)\b")

LOOP_OPS = frozenset({"scf.for", "scf.while"})
DOT_OPS = frozenset({"tt.dot", "tt.dot_scaled", "ttng.warp_group_dot", "ttng.tc_gen5_mma",
                     "ttng.tc_gen5_mma_scaled"})


def is_dot(name: str) -> bool:
    """tt.dot, ttng.warp_group_dot, ttng.tc_gen5_mma, and any op whose name ends in `dot` or `mma`."""
    return name in DOT_OPS or name.endswith(("dot", "mma", "dot_scaled", "mma_scaled"))


@dataclass(frozen=True)
class MlirOp:
    index: int
    line: int  # 1-based
    end_line: int  # the line of its last `}` (== line for an op without regions)
    name: str  # "scf.for", "tt.dot", "arith.addi"
    results: str | None  # "%acc_77:9", "%a, %b"
    depth: int  # regions around it: 0 for `module`, 1 for `tt.func`, 2 for the ops of a kernel
    parent: int | None  # the op whose region holds it
    loc: str | None  # what its trailing `loc(...)` holds: "#loc118", '"file":1:2', ...

    @property
    def dialect(self) -> str:
        return self.name.split(".", 1)[0] if "." in self.name else "builtin"


@dataclass(frozen=True)
class Layout:
    name: str  # "blocked1" (without "#")
    kind: str  # "ttg.blocked", "ttg.nvidia_mma", "ttg.nvmma_shared", "ttg.shared_memory", ...
    params: tuple[tuple[str, str], ...]  # (("sizePerThread", "[1, 8]"), ...)
    text: str  # the attribute as written
    line: int


@dataclass(frozen=True)
class FileLoc:
    file: str
    line: int
    col: int


@dataclass(frozen=True)
class SourceLocation:
    """A resolved `loc(...)`: where the op comes from, the call sites it was inlined through (innermost
    first) and the names Triton attached (`loc("acc"(...))`, the Python variable)."""

    site: FileLoc
    callers: tuple[FileLoc, ...] = ()
    names: tuple[str, ...] = ()

    @property
    def kernel_site(self) -> FileLoc:
        """The outermost call site: the line of the kernel that led here."""
        return self.callers[-1] if self.callers else self.site


@dataclass(frozen=True)
class MlirLoop:
    op: MlirOp
    depth: int  # 1 for an outermost loop
    parent: int | None  # index into MlirModule.loops
    dots: int  # dot ops inside (nested loops included)
    ops: int  # ops inside (nested included)

    @property
    def start_line(self) -> int:
        return self.op.line

    @property
    def end_line(self) -> int:
        return self.op.end_line


@dataclass(frozen=True, eq=False)
class MlirModule:
    ops: tuple[MlirOp, ...]
    layouts: Mapping[str, Layout]
    loc_aliases: Mapping[str, str]  # "loc94" -> "callsite(#loc3 at #loc33)"
    _lines: tuple[str, ...] = field(default=(), repr=False)

    @property
    def functions(self) -> tuple[MlirOp, ...]:
        return tuple(op for op in self.ops if op.name in ("tt.func", "func.func", "llvm.func"))

    @property
    def kernel_name(self) -> str | None:
        for op in self.functions:
            return self._function_name(op)
        return None

    def _function_name(self, op: MlirOp) -> str | None:
        m = FUNCTION_NAME_RE.search(self._lines[op.line - 1]) if self._lines else None
        return m[1] if m else None

    def text(self, op: MlirOp) -> str:
        """The op's first line as printed (operands, attributes, types, trailing loc)."""
        return self._lines[op.line - 1] if self._lines else ""

    def op_counts(self, *, within: MlirOp | None = None) -> Counter:
        return Counter(op.name for op in self._select(within))

    def dialect_counts(self, *, within: MlirOp | None = None) -> Counter:
        return Counter(op.dialect for op in self._select(within))

    @cached_property
    def _op_lines(self) -> list[int]:
        return [op.line for op in self.ops]  # ascending: ops are kept in text order

    def _select(self, within: MlirOp | None):
        if within is None:
            return self.ops
        return self.ops[bisect_right(self._op_lines, within.line):bisect_right(self._op_lines, within.end_line)]

    @cached_property
    def loops(self) -> tuple[MlirLoop, ...]:
        # Linear in the ops (a 50 MB module has thousands of loops): a stack of the loops still open.
        # Ops and dots inside a loop come from prefix sums over the ops, so deep nesting stays linear too.
        dots_before = [0]
        for op in self.ops:
            dots_before.append(dots_before[-1] + is_dot(op.name))
        out: list[MlirLoop] = []
        open_loops: list[int] = []  # the loops that contain the current op, outermost first
        for op in self.ops:
            if op.name not in LOOP_OPS:
                continue
            while open_loops and out[open_loops[-1]].op.end_line < op.line:
                open_loops.pop()
            if open_loops and op.end_line > out[open_loops[-1]].op.end_line:  # malformed: not nested
                open_loops.clear()
            lo, hi = bisect_right(self._op_lines, op.line), bisect_right(self._op_lines, op.end_line)
            out.append(MlirLoop(op, len(open_loops) + 1, open_loops[-1] if open_loops else None,
                                dots_before[hi] - dots_before[lo], hi - lo))
            open_loops.append(len(out) - 1)
        return tuple(out)

    def in_loop(self, op: MlirOp) -> bool:
        """Whether `op` sits inside any loop of the module (scf.for / scf.while)."""
        return any(loop.op.line < op.line <= loop.op.end_line for loop in self.loops)

    @cached_property
    def main_loop(self) -> MlirLoop | None:
        """The innermost loop holding a dot op (most dots, then most ops, then first); None when no
        loop holds one."""
        loops = self.loops
        with_dotted_child = {other.parent for other in loops if other.dots}
        candidates = [i for i, loop in enumerate(loops) if loop.dots and i not in with_dotted_child]
        if not candidates:
            return None
        return loops[max(candidates, key=lambda i: (loops[i].dots, loops[i].ops, -loops[i].op.line))]

    def loop_of_interest(self, names: tuple[str, ...]) -> MlirLoop | None:
        """The main loop, else the innermost loop holding the most ops named in `names` (the first of
        equals): a reduction's loop when `names` are its loads. None when no loop holds one."""
        if self.main_loop is not None:
            return self.main_loop
        parents = {loop.parent for loop in self.loops if loop.parent is not None}
        counts = {i: sum(1 for op in self._select(loop.op) if op.name in names)
                  for i, loop in enumerate(self.loops) if i not in parents}
        best = max((i for i in counts if counts[i]), key=lambda i: counts[i], default=None)
        return None if best is None else self.loops[best]

    def resolve(self, loc: str | MlirOp | None) -> SourceLocation | None:
        """`#loc94`, `loc(#loc94)`, `"k.py":3:0`, `callsite(#loc3 at #loc33)`, ... -> file:line:col."""
        text = loc.loc if isinstance(loc, MlirOp) else loc
        if not text:
            return None
        text = text.strip()
        if text.startswith("loc(") and text.endswith(")"):
            text = text[4:-1]
        return _Resolver(self.loc_aliases).resolve(text, 0)


class _Resolver:
    def __init__(self, aliases: Mapping[str, str]):
        self.aliases = aliases

    def resolve(self, text: str, depth: int) -> SourceLocation | None:
        text = text.strip()
        if depth > 64 or not text or text == "unknown":
            return None
        if text.startswith("#"):
            target = self.aliases.get(text[1:])
            return self.resolve(target, depth + 1) if target is not None else None
        if text.startswith("callsite(") and text.endswith(")"):
            callee, sep, caller = _split_at(text[9:-1], " at ")
            inner = self.resolve(callee, depth + 1)
            outer = self.resolve(caller, depth + 1) if sep else None
            if inner is None:
                return outer
            if outer is None:
                return inner
            return SourceLocation(inner.site, inner.callers + (outer.site,) + outer.callers,
                                  inner.names + outer.names)
        if text.startswith("fused"):
            start = text.find("[")
            for part in _split_top(text[start + 1:text.rfind("]")] if start >= 0 else ""):
                found = self.resolve(part, depth + 1)
                if found is not None:
                    return found
            return None
        m = FILE_LOC_RE.match(text)
        if m and (m.end() == len(text) or text[m.end():].lstrip().startswith("to")):
            return SourceLocation(FileLoc(m[1], int(m[2]), int(m[3])))
        if text.startswith('"'):  # a name location: "a_ptr"(#loc)
            close = text.find('"', 1)
            name, rest = text[1:close], text[close + 1:].strip()
            wrapped = rest.startswith("(") and rest.endswith(")")
            inner = self.resolve(rest[1:-1], depth + 1) if wrapped else None
            return SourceLocation(inner.site, inner.callers, (name, *inner.names)) if inner else None
        return None


def _split_at(text: str, sep: str) -> tuple[str, str, str]:
    level = 0
    for pos in range(len(text)):
        ch = text[pos]
        if ch in "([<":
            level += 1
        elif ch in ")]>":
            level -= 1
        elif level == 0 and text.startswith(sep, pos):
            return text[:pos], sep, text[pos + len(sep):]
    return text, "", ""


def _split_top(text: str) -> list[str]:
    out, level, start = [], 0, 0
    for pos, ch in enumerate(text):
        if ch in "([{<":
            level += 1
        elif ch in ")]}>":
            level -= 1
        elif ch == "," and level == 0:
            out.append(text[start:pos])
            start = pos + 1
    tail = text[start:]
    return out + [tail] if tail.strip() else out


def _trailing_loc(s: str) -> str | None:
    at = s.rfind(MLIR_TRAILING_LOC)
    if at < 0:
        return None
    inner = s[at + len(MLIR_TRAILING_LOC):]
    return inner[:-1] if inner.endswith(")") else None


def parse_mlir(text: str, *, stage: str = "ttgir") -> MlirModule:
    lines = text.split("\n")
    ops: list[MlirOp] = []
    ends: dict[int, int] = {}
    locs: dict[int, str | None] = {}
    layouts: dict[str, Layout] = {}
    loc_aliases: dict[str, str] = {}
    stack: list[int] = []  # ops whose region we are in
    closed: int | None = None  # the op whose region the previous line closed
    for no, raw in enumerate(lines, 1):
        s = raw.strip()
        if not s or s.startswith("//"):
            continue
        c = s[0]
        if c == "#" and not stack:
            m = ALIAS_RE.match(s)
            if m is None:
                raise ParseError("cannot read this alias", line=no, stage=stage)
            name, value = m[1], m[2].strip()
            if value.startswith("loc(") and value.endswith(")"):
                loc_aliases[name] = value[4:-1]
            else:
                a = ATTRIBUTE_RE.match(value)
                params = tuple(_param(p) for p in _split_top(a[2] or "")) if a else ()
                layouts[name] = Layout(name, a[1] if a else value, params, value, no)
            continue
        if c == "}":
            if not stack:
                raise ParseError("'}' closes no region", line=no, stage=stage)
            owner = stack.pop()
            ends[owner], locs[owner] = no, _trailing_loc(s)
            closed = owner
            if s.endswith("{"):  # } else {    /   } do {
                stack.append(owner)
            continue
        previous, closed = closed, None
        if c == "^":  # ^bb0(%row_40: f32 loc(...), ...):
            continue
        m = OP_RE.match(s)
        if m is None:
            raise ParseError(f"cannot read this op: {s[:60]!r}", line=no, stage=stage)
        if s.endswith("{") and REGION_LABEL_RE.match(s):  # `default {` / `partition0(...) {`
            region_of = previous if previous is not None else (
                ops[-1].index if ops and ops[-1].depth == len(stack) else None)
            if region_of is not None:
                stack.append(region_of)  # another region of the op before
                continue
        index = len(ops)
        ops.append(MlirOp(index, no, no, m[2] or m[3], m[1], len(stack), stack[-1] if stack else None,
                          _trailing_loc(s)))
        if s.endswith("{"):
            stack.append(index)
    if stack:
        raise ParseError(f"region of {ops[stack[-1]].name} is not closed", line=ops[stack[-1]].line,
                         stage=stage)
    final = tuple(MlirOp(op.index, op.line, ends.get(op.index, op.line), op.name, op.results, op.depth,
                         op.parent, locs.get(op.index, op.loc) if op.index in ends else op.loc)
                  for op in ops)
    return MlirModule(final, layouts, loc_aliases, tuple(lines))


def _param(text: str) -> tuple[str, str]:
    key, _, value = text.partition("=")
    return key.strip(), value.strip()


_INPUT_PRECISION = re.compile(r"inputPrecision\s*=\s*(\w+)")
_ALLOW_TF32 = re.compile(r"allowTF32\s*=\s*(true|false)")  # Triton before 3.0 spelled the choice as a flag


def dot_input_precision(text: str) -> str:
    """A tt.dot's input precision as the TTIR says it (`text`: the op or its attributes). MLIR leaves out an
    attribute that holds its default, and tt.dot's inputPrecision defaults to IEEE (TritonOps.td:
    DefaultValuedAttr ... InputPrecision::IEEE), so a dot that names none is an IEEE dot —
    `input_precision="ieee"` is printed as nothing at all."""
    named = _INPUT_PRECISION.search(text)
    if named:
        return named[1]
    flag = _ALLOW_TF32.search(text)
    return ("tf32" if flag[1] == "true" else "ieee") if flag else "ieee"

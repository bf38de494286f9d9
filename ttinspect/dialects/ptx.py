"""PTX as LLVM's NVPTX back end prints it for Triton: functions, instructions, basic blocks, loops.

One pass over the lines with a first-character dispatch does the work every caller needs (where each
instruction is, the labels, the branches, the `.loc` in effect); `Instruction` objects (predicate,
opcode, modifiers, operands) are decoded only when asked for. That keeps the scan above 40 MB/s.

Blocks start at labels that some branch targets and after every branch, `ret` and `exit` of the
function body. Inline assembly is wrapped by LLVM in `// begin inline asm` / `// end inline asm`, and
Triton puts the asm that needs labels inside a `{ }` scope, e.g. the mbarrier spin of TMA kernels:

    {
    .reg .pred complete;
    waitLoop:
    mbarrier.try_wait.parity.shared::cta.b64 complete, [%r267], %r266;
    @!complete bra.uni waitLoop;
    }

Labels and branches inside inline asm or a nested scope are local: they stay inside the enclosing
block, so the spin is never mistaken for a loop of the kernel. `.loc` lines inside inline asm are ignored: Triton 3.9
emits them there with line numbers counted from the asm string, not the kernel source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping

from ttinspect.errors import ParseError
from ttinspect.dialects.cfg import CFG, Block, CFGFunction, KernelModule, build_cfg
from ttinspect.dialects.locations import PTX_FILE_RE, SourcePos, ptx_source_pos
from ttinspect.dialects.operands import split_operands

# .visible .entry matmul_kernel(          /  .func (.param .b32 retval0) helper(
FUNCTION_RE = re.compile(r"\.(entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$.]*)")
# .target sm_90a      /  .version 8.7
HEADER_RE = re.compile(r"\.(target|version)\s+([\w.,\s]+?)\s*(?://.*)?$")
# @!complete bra.uni waitLoop;       /  @%p15 bra 	$L__BB0_3;      /  mov.b32 	%r246, 0;
INSTRUCTION_RE = re.compile(r"(?:@(!?)([%\w$.]+)\s+)?([A-Za-z_][\w.:]*)\s*([^;]*?)\s*;?\s*(?://.*)?$")
# $L__BB0_3:                              // =>This Inner Loop Header: Depth=1
LOOP_HEADER_COMMENT = "Loop Header"

TENSOR_CORE_PREFIXES = ("mma.", "wmma.mma", "wgmma.mma_async", "tcgen05.mma")


@dataclass(frozen=True)
class Instruction:
    index: int
    line: int  # 1-based line in the PTX text
    predicate: str | None  # "%p1" (without "@" and "!")
    negated: bool  # "@!%p1"
    opcode: str  # "mma"
    modifiers: tuple[str, ...]  # ("sync", "aligned", "m16n8k16", ...)
    operands: tuple[str, ...]
    loc: SourcePos | None  # the .loc in effect
    inline_asm: bool  # between `// begin inline asm` and `// end inline asm`, or in a nested { } scope

    @property
    def mnemonic(self) -> str:
        return ".".join((self.opcode, *self.modifiers))

    @property
    def is_tensor_core(self) -> bool:
        return (self.mnemonic + ".").startswith(TENSOR_CORE_PREFIXES)


@dataclass(frozen=True)
class Label:
    name: str
    line: int
    local: bool  # defined in inline asm or a nested { } scope
    comment: str  # LLVM's block comment, e.g. "=>This Inner Loop Header: Depth=1" or "%.lr.ph"


@dataclass(frozen=True, eq=False)
class PtxFunction(CFGFunction[Instruction]):
    name: str
    kind: str  # "entry" (a kernel) or "func"
    header_line: int
    body_start: int  # the line of its `{`
    body_end: int  # the line of its `}`
    labels: tuple[Label, ...]
    cfg: CFG
    _lines: list[str] = field(repr=False)
    _ins_line: list[int] = field(repr=False)
    _ins_loc: list[int] = field(repr=False)  # line of the .loc in effect, 0 for none
    _ins_asm: set[int] = field(repr=False)

    TENSOR_CORE_OPS = "tensor-core instructions (mma, wgmma, tcgen05.mma)"

    def __len__(self) -> int:
        return len(self._ins_line)

    def instruction(self, index: int) -> Instruction:
        line = self._ins_line[index]
        return _decode(index, line, self._lines[line - 1], self.source_pos(index), index in self._ins_asm)

    def source_pos(self, index: int) -> SourcePos | None:
        """The `.loc` in effect at instruction `index` (None: none), without decoding the instruction."""
        return self._loc(self._ins_loc[index])

    @cached_property
    def instructions(self) -> tuple[Instruction, ...]:
        return tuple(self.instruction(i) for i in range(len(self._ins_line)))

    def llvm_loop_headers(self) -> tuple[str, ...]:
        """Labels LLVM itself marked as loop headers in its comments (a cross-check for `loops`)."""
        return tuple(lab.name for lab in self.labels if LOOP_HEADER_COMMENT in lab.comment)

    def tensor_ops_per_block(self) -> list[int]:
        # From the raw lines, and only in loops: decoding every instruction would cost more than the scan.
        in_loop = {b for loop in self.loops for b in loop.blocks}
        lines, at = self._lines, self._ins_line
        return [sum(1 for i in range(b.first, b.last) if "mma" in lines[at[i] - 1]
                    and _is_tensor_core(lines[at[i] - 1])) if b.index in in_loop else 0
                for b in self.blocks]

    def _loc(self, line: int) -> SourcePos | None:
        if not line:
            return None
        cache = self.__dict__.setdefault("_loc_cache", {})
        if line not in cache:
            cache[line] = ptx_source_pos(self._lines[line - 1])
        return cache[line]


@dataclass(frozen=True, eq=False)
class PtxModule(KernelModule):
    version: str | None
    target: str | None
    files: Mapping[int, str]  # the `.file` table
    functions: tuple[PtxFunction, ...]
    line_count: int

    @property
    def kernel(self) -> PtxFunction | None:
        """The first `.entry` (Triton emits one kernel per module)."""
        return next((f for f in self.functions if f.kind == "entry"), None)


    def file_of(self, pos: SourcePos | None) -> str | None:
        return self.files.get(pos.file) if pos else None


def parse_ptx(text: str) -> PtxModule:
    lines = text.split("\n")
    files: dict[int, str] = {}
    functions: list[PtxFunction] = []
    version = target = None
    pending: tuple[str, str, int] | None = None  # a function header waiting for its `{`
    skip = 0  # brace depth inside a `.section` body (DWARF), skipped wholesale
    skip_next = False
    numbered = enumerate(lines, 1)  # shared with _scan_function, which consumes a function's body
    for i, raw in numbered:
        s = raw.lstrip()
        if not s:
            continue
        c = s[0]
        if skip:  # .b8 1                                   // Abbreviation Code
            if c == "{" or c == "}":
                skip += s.count("{") - s.count("}")
            continue
        if c == ".":
            if s.startswith(".file"):
                m = PTX_FILE_RE.match(s)
                if m:
                    files[int(m[1])] = m[2]
            elif s.startswith(".section"):  # 	.section	.debug_abbrev
                skip_next = True
            elif s.startswith((".target", ".version")):
                m = HEADER_RE.match(s)
                if m and m[1] == "target":
                    target = target or m[2]
                elif m:
                    version = version or m[2]
            elif ".entry" in s or ".func" in s:
                m = FUNCTION_RE.search(s)
                if m:
                    pending = (m[2], m[1], i)
                    skip_next = False
                    if s.rstrip().endswith(";"):
                        pending = None
            elif pending and s.rstrip().endswith(";") and not s.startswith(".param"):
                pending = None  # a prototype (`.extern .func ... ;`), no body
            continue
        if c == "{":
            if skip_next:
                skip, skip_next = s.count("{") - s.count("}"), False
                continue
            if pending is None:
                raise ParseError("'{' outside a function", line=i, stage="ptx")
            functions.append(_scan_function(numbered, lines, i, *pending))
            pending = None
        elif c == "}":
            raise ParseError("unbalanced '}'", line=i, stage="ptx")
        elif c == ";" and pending:
            pending = None
    return PtxModule(version, target, files, tuple(functions), len(lines))


def _scan_function(numbered, lines: list[str], open_line: int, name: str, kind: str,
                   header: int) -> PtxFunction:
    ins_line: list[int] = []
    ins_loc: list[int] = []
    asm: set[int] = set()  # instructions in inline asm or in a nested { } scope
    labels: list[tuple[str, int, int, bool, str]] = []  # name, line, next instruction, local, comment
    branches: list[tuple[int, str, bool, bool]] = []  # instruction, target, conditional, in asm
    stops: list[tuple[int, bool]] = []  # ret / exit: instruction, conditional
    depth, loc, in_asm, special = 1, 0, False, False  # special: in_asm or depth > 1
    # JTI0_0:  .branchtargets $L__BB0_7, $L__BB0_16, $L__BB0_5;   (the targets of a `brx.idx %r, JTI0_0`:
    # how a warp-specialized kernel sends each partition's warps to their code)
    tables: dict[str, list[str]] = {}
    table: str | None = None
    for i, raw in numbered:
        s = raw.lstrip()
        if not s:
            continue
        c = s[0]
        if table is not None:
            tables[table] += [t.strip() for t in s.split(";")[0].split(",") if t.strip()]
            if ";" in s:
                table = None
            continue
        if c == ".":  # 	.loc	1 21 20    /  .reg .pred complete;
            if not in_asm and s.startswith(".loc"):
                loc = i
            elif s.startswith(".branchtargets") and labels:  # Triton 3.9:  JTI0_0:  then  .branchtargets
                table, rest = labels[-1][0], s[len(".branchtargets"):]
                tables[table] = [t.strip() for t in rest.split(";")[0].split(",") if t.strip()]
                if ";" in rest:
                    table = None
            continue
        if c == "/":  # 	// begin inline asm
            if s.startswith("// begin inline asm"):
                in_asm = special = True
            elif s.startswith("// end inline asm"):
                in_asm, special = False, depth > 1
            continue
        if c == "{" or c == "}":
            depth += s.count("{") - s.count("}")
            if depth <= 0:
                return _finish(lines, name, kind, header, open_line, i, ins_line, ins_loc, asm,
                               labels, branches, stops, tables)
            special = in_asm or depth > 1
            continue
        if c == "@":  # 	@%p15 bra 	$L__BB0_3;     /  @!complete bra.uni waitLoop;
            index = len(ins_line)
            ins_line.append(i)
            ins_loc.append(loc)
            if special:
                asm.add(index)
            parts = s.split(None, 2)
            if len(parts) > 1:
                _control(parts[1], parts[2] if len(parts) > 2 else "", index, True, special,
                         branches, stops)
            continue
        colon = s.find(":")  # $L__BB0_3:                              // %.lr.ph
        if colon > 0 and s[colon + 1:colon + 2] != ":" and " " not in s[:colon] and "\t" not in s[:colon]:
            rest = s[colon + 1:].strip()
            if rest.startswith(".branchtargets"):  # Triton 3.6:  $L_brx_0: .branchtargets
                table, rest = s[:colon], rest[len(".branchtargets"):]
                tables[table] = [t.strip() for t in rest.split(";")[0].split(",") if t.strip()]
                if ";" in rest:
                    table = None
                labels.append((s[:colon], i, len(ins_line), special, ""))
                continue
            comment = rest.removeprefix("//").strip()
            labels.append((s[:colon], i, len(ins_line), special, comment))
            continue
        index = len(ins_line)
        ins_line.append(i)
        ins_loc.append(loc)
        if special:
            asm.add(index)
        if c == "b" or c == "r" or c == "e":  # 	bra.uni 	$L__BB0_1;   /  ret;   /  exit;
            parts = s.split(None, 1)
            _control(parts[0], parts[1] if len(parts) > 1 else "", index, False, special,
                     branches, stops)
    raise ParseError(f"function {name} is not closed (missing '}}')", line=open_line, stage="ptx")


JUMP_TABLE = "\0table:"  # a branch target that names a jump table, not a label


def _control(op: str, rest: str, index: int, cond: bool, nested: bool,
             branches: list, stops: list) -> None:
    """Record a branch (`bra`, `bra.uni`) or a `ret` / `exit`; anything else is not control flow."""
    op = op.rstrip(";")
    if op == "bra" or op.startswith("bra."):
        branches.append((index, rest.split(";")[0].strip(), cond, nested))
    elif op.startswith("brx.idx"):  # brx.idx %r14, JTI0_0;  -> every target of the table
        branches.append((index, JUMP_TABLE + rest.split(";")[0].split(",")[-1].strip(), cond, nested))
    elif (op == "ret" or op == "exit" or op.startswith(("ret.", "exit."))) and not nested:
        stops.append((index, cond))


def _finish(lines, name, kind, header, open_line, close_line, ins_line, ins_loc, asm, labels,
            branches, stops, tables=None) -> PtxFunction:
    outer = {lab[0]: lab for lab in labels if not lab[3]}
    local = {lab[0] for lab in labels if lab[3]}
    nested_edges: list[tuple[int, str]] = []
    leaders = {0}
    ends: dict[int, tuple[str | None, bool]] = {}  # instruction -> (branch target or None, conditional)
    jumps: dict[int, list[str]] = {}  # a brx.idx instruction -> its table's targets
    for index, target, cond, nested in branches:
        if target.startswith(JUMP_TABLE):
            targets = (tables or {}).get(target[len(JUMP_TABLE):])
            if targets is None or any(t not in outer for t in targets):
                raise ParseError(f"brx.idx through an unknown jump table {target[len(JUMP_TABLE):]!r}",
                                 line=ins_line[index], stage="ptx")
            jumps[index] = targets
            ends[index] = (None, False)
            leaders.add(index + 1)
            leaders.update(outer[t][2] for t in targets)
            continue
        if nested and target in local:
            continue  # a spin inside an inline-asm scope: stays inside its block
        if target not in outer:
            raise ParseError(f"branch to undefined label {target!r}", line=ins_line[index], stage="ptx")
        if nested:
            nested_edges.append((index, target))
            continue
        ends[index] = (target, cond)
        leaders.add(index + 1)
        leaders.add(outer[target][2])
    for index, cond in stops:
        ends[index] = (None, cond)
        leaders.add(index + 1)
    label_at: dict[int, tuple[str, int]] = {}
    targeted = ({target for _, target, _, nested in branches if not nested} | {t for _, t in nested_edges}
                | {t for targets in jumps.values() for t in targets})
    for lab in labels:
        if not lab[3] and lab[0] in targeted and lab[2] not in label_at:
            label_at[lab[2]] = (lab[0], lab[1])
    count = len(ins_line)
    starts = sorted(x for x in leaders if x <= count)
    if len(starts) > 1 and starts[-1] == count and count not in label_at:
        starts.pop()  # nothing after the last terminator
    block_of_ins = {}
    raw: list[tuple[str | None, int, int, int]] = []  # label, start line, first, last
    for b, first in enumerate(starts):
        last = starts[b + 1] if b + 1 < len(starts) else count
        block_of_ins[first] = b
        if first in label_at:
            label, start = label_at[first]
        elif b == 0:
            label, start = None, open_line + 1
        else:
            label, start = None, ins_line[first - 1] + 1
        raw.append((label, start, first, last))
    block_index = {lab[0]: block_of_ins.get(lab[2]) for lab in outer.values()}
    blocks = []
    for b, (label, start, first, last) in enumerate(raw):
        end = raw[b + 1][1] - 1 if b + 1 < len(raw) else close_line - 1
        succ: list[int] = []
        kind_end = ends.get(last - 1) if last > first else None
        if kind_end is not None:
            target, cond = kind_end
            if target is not None:
                succ.append(block_index[target])  # type: ignore[arg-type]
            if cond and b + 1 < len(raw):
                succ.append(b + 1)
        elif b + 1 < len(raw):
            succ.append(b + 1)
        if last > first and last - 1 in jumps:
            succ.extend(block_index[t] for t in jumps[last - 1])  # type: ignore[misc]
        for index, target in nested_edges:
            if first <= index < last:
                succ.append(block_index[target])  # type: ignore[arg-type]
        unique = tuple(dict.fromkeys(s for s in succ if s is not None))
        blocks.append(Block(b, label, start, end, unique, first, last))
    return PtxFunction(name, kind, header, open_line, close_line,
                       tuple(Label(n_, ln, loc_, cm) for n_, ln, _, loc_, cm in labels),
                       build_cfg(blocks), lines, ins_line, ins_loc, asm)


def _is_tensor_core(line: str) -> bool:
    text = line.lstrip()
    if text[:1] == "@":
        text = text.split(None, 1)[-1]
    return text.startswith(TENSOR_CORE_PREFIXES) or text.startswith("mma ")


def _decode(index: int, line: int, text: str, loc: SourcePos | None, asm: bool) -> Instruction:
    m = INSTRUCTION_RE.match(text.strip())
    if m is None:
        raise ParseError(f"cannot read instruction {text.strip()[:60]!r}", line=line, stage="ptx")
    mnemonic = m[3].split(".")
    return Instruction(index, line, m[2], m[1] == "!", mnemonic[0], tuple(mnemonic[1:]),
                       split_operands(m[4]), loc, asm)

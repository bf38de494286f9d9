"""LLVM IR as Triton writes it (`kernel.llir`): functions, basic blocks, `br` successors, loops.

LLVM's text form makes blocks explicit: every block but the entry starts with a label at column 0
(`106:` or `.lr.ph:`, followed by `; preds = ...`) and ends with one terminator (`br`, `switch`, `ret`,
`unreachable`, ...) whose `label %X` operands are its successors. Tensor-core work shows up as inline asm
(`asm sideeffect "mma.sync.aligned..."`, `"wgmma.mma_async..."`, `"@$5 tcgen05.mma..."`) or as
`@llvm.nvvm.*mma*` intrinsics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ttinspect.errors import ParseError
from ttinspect.dialects.cfg import CFG, Block, CFGFunction, KernelModule, build_cfg

# define ptx_kernel void @matmul_kernel(ptr addrspace(1) %0, ...) local_unnamed_addr #0 !dbg !4 {
DEFINE_RE = re.compile(r'^define\b[^@]*@("[^"]+"|[\w.$-]+)\s*\(')
# 106:                                              ; preds = %.lr.ph, %106
LABEL_RE = re.compile(r'^("[^"]+"|[\w.$-]+):\s*(?:;.*)?$')
#   %exitcond.not = icmp eq i32 %118, %62, !dbg !44      /    br label %106, !dbg !44
INSTRUCTION_RE = re.compile(
    r'^\s+(?:(%[\w.$-]+|%"[^"]+")\s*=\s*)?(?:(?:tail|musttail|notail)\s+)?([a-z][\w.]*)')
#   br i1 %exitcond.not, label %._crit_edge, label %106, !dbg !44
TARGET_RE = re.compile(r'label\s+%("[^"]+"|[\w.$-]+)')
# , !dbg !46
DBG_RE = re.compile(r"!dbg\s+!(\d+)")
#   %159 = tail call {...} asm sideeffect "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0,...
#   tail call void asm sideeffect "@$5 tcgen05.mma.cta_group::1.kind::f16 [ $0 + 0 ], ..."
ASM_RE = re.compile(r'\basm\s+(?:sideeffect\s+)?(?:alignstack\s+)?(?:inteldialect\s+)?"((?:[^"\\]|\\.)*)"')
# mma.sync.aligned.m16n8k16...  /  wgmma.mma_async...  /  tcgen05.mma...   (inside an asm string)
TENSOR_CORE_ASM_RE = re.compile(r"(?<![\w.])(?:mma\.|wmma\.mma|wgmma\.mma_async|tcgen05\.mma)")
#   %r = call <4 x float> @llvm.nvvm.mma.m16n8k16.row.col.f32.f16(...)
TENSOR_CORE_INTRINSIC_RE = re.compile(r"@llvm\.nvvm\.(?:mma\.|wmma\.\w+\.mma|wgmma\.mma_async|tcgen05\.mma)")
# !46 = !DILocation(line: 21, column: 20, scope: !4)   /  !1 = !DIFile(filename: "k.py", directory: "/tmp/t")
METADATA_RE = re.compile(r"^!(\d+)\s*=\s*(?:distinct\s+)?!(\w+)\((.*)\)\s*$")
FIELD_RE = re.compile(r'(\w+):\s*("(?:[^"\\]|\\.)*"|![0-9]+|[-\w]+)')

TERMINATORS = frozenset({"br", "switch", "ret", "unreachable", "indirectbr", "invoke", "callbr",
                         "resume", "cleanupret", "catchret", "catchswitch"})


@dataclass(frozen=True)
class LlInstruction:
    index: int
    line: int
    result: str | None  # "%106", or None
    opcode: str  # "call", "br", "getelementptr", ... (after `tail`)
    text: str  # the line, stripped
    dbg: int | None  # the `!dbg !N` metadata id

    @property
    def is_tensor_core(self) -> bool:
        if "mma" not in self.text:
            return False
        asm = ASM_RE.search(self.text)
        if asm is not None:
            return TENSOR_CORE_ASM_RE.search(asm[1]) is not None
        return TENSOR_CORE_INTRINSIC_RE.search(self.text) is not None


@dataclass(frozen=True, eq=False)
class LlFunction(CFGFunction[LlInstruction]):
    name: str
    define_line: int
    end_line: int
    instructions: tuple[LlInstruction, ...]
    cfg: CFG

    TENSOR_CORE_OPS = "tensor-core operations (mma / wgmma / tcgen05 asm)"


@dataclass(frozen=True)
class DebugLoc:
    file: str | None
    line: int
    col: int
    inlined_at: DebugLoc | None = None


@dataclass(frozen=True, eq=False)
class LlModule(KernelModule):
    functions: tuple[LlFunction, ...]
    _metadata: dict[int, tuple[str, str]] = field(repr=False)  # id -> (kind, fields text)

    @property
    def kernel(self) -> LlFunction | None:
        return self.functions[0] if self.functions else None


    def location(self, dbg: int | None, _depth: int = 0) -> DebugLoc | None:
        """Resolve a `!dbg !N` to file, line, column (and the call site it was inlined at)."""
        entry = self._metadata.get(dbg) if dbg is not None else None
        if entry is None or entry[0] != "DILocation" or _depth > 32:
            return None
        fields = dict(FIELD_RE.findall(entry[1]))
        inlined = fields.get("inlinedAt")
        return DebugLoc(self._file_of(fields.get("scope")), _int(fields.get("line")),
                        _int(fields.get("column")),
                        self.location(int(inlined[1:]), _depth + 1) if inlined else None)

    def _file_of(self, scope: str | None) -> str | None:
        for _ in range(32):
            entry = self._metadata.get(int(scope[1:])) if scope and scope.startswith("!") else None
            if entry is None:
                return None
            fields = dict(FIELD_RE.findall(entry[1]))
            if entry[0] == "DIFile":
                name, directory = fields.get("filename", '""')[1:-1], fields.get("directory", '""')[1:-1]
                return f"{directory}/{name}" if directory and not name.startswith("/") else name
            scope = fields.get("file") or fields.get("scope")
        return None


def _int(value: str | None) -> int:
    return int(value) if value and value.lstrip("-").isdigit() else 0


def parse_llir(text: str) -> LlModule:
    lines = text.split("\n")
    functions: list[LlFunction] = []
    metadata: dict[int, tuple[str, str]] = {}
    numbered = enumerate(lines, 1)
    for no, raw in numbered:
        c = raw[:1]
        if c == "d" and raw.startswith("define"):
            m = DEFINE_RE.match(raw)
            if m is None or not raw.rstrip().endswith("{"):
                raise ParseError("cannot read this function definition", line=no, stage="llir")
            functions.append(_function(numbered, m[1].strip('"'), no))
        elif c == "!":
            m = METADATA_RE.match(raw)
            if m:
                metadata[int(m[1])] = (m[2], m[3])
    return LlModule(tuple(functions), metadata)


def _function(numbered, name: str, define_line: int) -> LlFunction:
    instructions: list[LlInstruction] = []
    starts: list[tuple[str | None, int, int]] = [(None, define_line + 1, 0)]  # label, line, instruction
    last_text = define_line
    for no, raw in numbered:
        if raw[:1] == "}":
            return _finish(name, define_line, no, instructions, starts, last_text)
        if not raw.strip() or raw.lstrip()[:1] == ";":
            continue
        if raw[:1] not in (" ", "\t"):
            m = LABEL_RE.match(raw)
            if m is None:
                raise ParseError(f"unexpected line in function {name}", line=no, stage="llir")
            starts.append((m[1].strip('"'), no, len(instructions)))
            continue
        last_text = no
        open_list = bool(instructions) and instructions[-1].text.count("[") > instructions[-1].text.count("]")
        m = None if open_list else INSTRUCTION_RE.match(raw)
        if m is None:  # a continuation line (`switch` cases, `]`)
            if instructions:
                prev = instructions[-1]
                instructions[-1] = LlInstruction(prev.index, prev.line, prev.result, prev.opcode,
                                                 prev.text + " " + raw.strip(), prev.dbg)
            continue
        d = DBG_RE.search(raw)
        instructions.append(LlInstruction(len(instructions), no, m[1], m[2], raw.strip(),
                                          int(d[1]) if d else None))
    raise ParseError(f"function {name} is not closed (missing '}}')", line=define_line, stage="llir")


def _finish(name, define_line, close_line, instructions, starts, last_text) -> LlFunction:
    if len(starts) > 1 and starts[0][2] == starts[1][2]:
        starts = starts[1:]  # the first block has a label of its own
    index = {label: b for b, (label, _, _) in enumerate(starts) if label is not None}
    blocks = []
    for b, (label, line, first) in enumerate(starts):
        last = starts[b + 1][2] if b + 1 < len(starts) else len(instructions)
        end = (starts[b + 1][1] - 1) if b + 1 < len(starts) else close_line - 1
        while end > line and last > first and end > instructions[last - 1].line:
            end -= 1  # trailing blank lines belong to nobody
        succ: list[int] = []
        if last > first and instructions[last - 1].opcode in TERMINATORS:
            for target in TARGET_RE.findall(instructions[last - 1].text):
                target = target.strip('"')
                if target not in index:
                    raise ParseError(f"branch to undefined block %{target}", line=instructions[last - 1].line,
                                     stage="llir")
                succ.append(index[target])
        elif b + 1 < len(starts):
            succ.append(b + 1)  # malformed (no terminator): assume fallthrough
        blocks.append(Block(b, label, line, end, tuple(dict.fromkeys(succ)), first, last))
    return LlFunction(name, define_line, close_line, tuple(instructions), build_cfg(blocks))

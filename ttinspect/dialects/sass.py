"""SASS as `nvdisasm -c -g` prints it (labels `.L_x_N`, `//## File` marks), or `cuobjdump -sass`
(branch targets as addresses, an encoding line after each instruction) as a fallback.

Functions: nvdisasm names every function (`.type NAME,@function` then `NAME:`); besides the kernel, sm_100
cubins carry `$__internal_*` trap helpers reached by CALL. cuobjdump prints `Function : NAME`. The kernel
is the first function. Its blocks start at branch targets and after BRA / EXIT / RET / BRX / JMP; a
guard (`@P0`, `@!UP1`; `@PT` is always true) or a predicate operand (`BRA.U !UP0, ...`) makes a branch
conditional. ptxas moves the slow path of an mbarrier wait out of line after EXIT
(`.L_x_9: SYNCS.PHASECHK.TRANS64.TRYWAIT P4, [UR18], R10; @!P4 BRA .L_x_9; BRA .L_x_16`): that block is
part of the loop it returns into, so a Blackwell main loop is often not contiguous in the text. An
indirect branch (`BRX R2 ... (*"BRANCH_TARGETS .L_x_39,.L_x_40"*)`, a warp-specialized kernel's dispatch to
its partitions) goes to every target of the jump table nvdisasm prints beside it, in table order; without
the table (cuobjdump) its targets stay unknown and the code behind it unreachable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ttinspect.errors import ParseError
from ttinspect.dialects.cfg import CFG, Block, CFGFunction, KernelModule, build_cfg
from ttinspect.dialects.operands import split_operands

#         /*0030*/               @P1 BRA `(.L_x_0) ;
#         /*0e10*/                   BRA.U UP0, `(.L_x_0)                                       ?trans5;
#         /*0030*/               @P1 BRA 0x320 ;                                      /* 0x0000000000b81947 */
INSTRUCTION_RE = re.compile(
    r"/\*([0-9a-fA-F]+)\*/\s*(?:@(!?)(U?P(?:T|\d+))\s+)?([A-Z][A-Za-z0-9_]*)((?:\.[\w]+)*)\s*([^;]*);")
# 	//## File "/tmp/t/k.py", line 21
SOURCE_RE = re.compile(
    r'//##\s*File\s+"([^"]*)",\s*line\s+(\d+)(?:\s+inlined at\s+"([^"]*)",\s*line\s+(\d+))?')
# .L_x_4:      /  matmul_kernel:      /  $__internal_0_$__cuda_sm10x_tcgen05_guardrail_trap_...:
LABEL_RE = re.compile(r"^([.$\w]+):\s*(?://.*)?$")
#         .type           matmul_kernel,@function
TYPE_RE = re.compile(r"\.type\s+([\w.$]+)\s*,\s*@function")
# 		Function : matmul_kernel
CUOBJDUMP_FUNCTION_RE = re.compile(r"^\s*Function\s*:\s*(\S+)")
# `(.L_x_4)    /   0x1620
TARGET_RE = re.compile(r"`\(([^)]+)\)|^(0x[0-9a-fA-F]+)$")
# ... BRA.U !UP0, `(.L_x_3)  ?trans5     /  ... &wr=0x1 ?WAIT5_END_GROUP
TRAILER_RE = re.compile(r"(?:\s+[?&]\S+)+\s*$")

BRANCHES = frozenset({"BRA", "JMP"})
STOPS = frozenset({"EXIT", "RET", "BRX", "JMX", "KILL"})
# BRX R2 -0x1220 (*"BRANCH_TARGETS .L_x_39,.L_x_40,.L_x_41,.L_x_42"*) : the jump table nvdisasm prints for
# an indirect branch (a warp-specialized kernel's dispatch to its partitions: Triton's switch over them)
JUMP_TABLE_RE = re.compile(r'BRANCH_TARGETS\s+([^"*]+)')


@dataclass(frozen=True)
class SassInstruction:
    index: int
    line: int  # 1-based line in the text
    address: int
    predicate: str | None  # "P0", "UP1", "PT"
    negated: bool
    opcode: str  # "HMMA"
    modifiers: tuple[str, ...]  # ("16816", "F32")
    operands: tuple[str, ...]
    source: tuple[str, int] | None  # the `//## File` mark in effect: (file, line)
    target: str | None  # branch target: a label, or "0x1620" in cuobjdump output
    jump_targets: tuple[str, ...] = ()  # an indirect branch's (BRX / JMX) table, in case order

    @property
    def mnemonic(self) -> str:
        return ".".join((self.opcode, *self.modifiers))

    @property
    def is_tensor_core(self) -> bool:
        """HMMA, HGMMA, IMMA, DMMA, QGMMA, UTCHMMA, UTCQMMA, ... (every opcode ending in MMA)."""
        return self.opcode.endswith("MMA")


@dataclass(frozen=True, eq=False)
class SassFunction(CFGFunction[SassInstruction]):
    name: str
    start_line: int
    end_line: int
    instructions: tuple[SassInstruction, ...]
    labels: dict[str, int]  # label -> index of the instruction that follows it
    cfg: CFG

    TENSOR_CORE_OPS = "tensor-core instructions (HMMA, HGMMA, UTC*MMA, ...)"


@dataclass(frozen=True, eq=False)
class SassModule(KernelModule):
    functions: tuple[SassFunction, ...]
    format: str  # "nvdisasm" or "cuobjdump"

    @property
    def kernel(self) -> SassFunction | None:
        return self.functions[0] if self.functions else None



@dataclass
class _Open:  # a function being read
    name: str
    start: int
    instructions: list[SassInstruction]
    labels: list[tuple[str, int, int]]  # name, index of the next instruction, line


def parse_sass(text: str) -> SassModule:
    lines = text.split("\n")
    cuobjdump = "Function :" in text and "//##" not in text
    function_names: set[str] = set()
    done: list[_Open] = []
    current: _Open | None = None
    source: tuple[str, int] | None = None
    for no, raw in enumerate(lines, 1):
        s = raw.strip()
        if not s:
            continue
        c = s[0]
        if c == "/":
            if s.startswith("/*") and s[2:3] != " ":  # an instruction (not an encoding line)
                if current is None:
                    if cuobjdump:
                        raise ParseError("instruction outside a function", line=no, stage="sass")
                    current = _Open("<anonymous>", no, [], [])
                current.instructions.append(_instruction(s, no, len(current.instructions), source))
            elif s.startswith("//##"):
                m = SOURCE_RE.search(s)
                source = (m[1], int(m[2])) if m else source
            continue
        if c == ".":
            m = TYPE_RE.match(s)
            if m:
                function_names.add(m[1])
                continue
        m = LABEL_RE.match(s)
        if m:
            name = m[1]
            if name in function_names:
                if current is not None:
                    done.append(current)
                current, source = _Open(name, no, [], []), None
            elif current is not None and not name.startswith(".text."):
                current.labels.append((name, len(current.instructions), no))
            continue
        m = CUOBJDUMP_FUNCTION_RE.match(s)
        if m:
            if current is not None:
                done.append(current)
            current, source = _Open(m[1], no, [], []), None
    if current is not None:
        done.append(current)
    functions = tuple(_build(f) for f in done if f.instructions)
    return SassModule(functions, "cuobjdump" if cuobjdump else "nvdisasm")


def _instruction(s: str, no: int, index: int, source: tuple[str, int] | None) -> SassInstruction:
    m = INSTRUCTION_RE.match(s)
    if m is None:
        raise ParseError(f"cannot read SASS instruction {s[:60]!r}", line=no, stage="sass")
    body = TRAILER_RE.sub("", m[6]).strip()
    operands = split_operands(body)
    opcode = m[4]
    target = None
    if opcode in BRANCHES and operands:
        t = TARGET_RE.search(operands[-1])
        target = (t[1] or t[2]) if t else None
    table = JUMP_TABLE_RE.search(s) if opcode in ("BRX", "JMX") else None
    jump_targets = tuple(label.strip() for label in table[1].split(",") if label.strip()) if table else ()
    return SassInstruction(index, no, int(m[1], 16), m[3], m[2] == "!", opcode,
                           tuple(x for x in m[5].split(".") if x), operands, source, target, jump_targets)


def _conditional(ins: SassInstruction) -> bool:
    guarded = ins.predicate is not None and not (ins.predicate == "PT" and not ins.negated)
    operand = ins.opcode in BRANCHES and len(ins.operands) > 1 and "P" in ins.operands[0]
    return guarded or operand


def _build(f: _Open) -> SassFunction:
    instructions = f.instructions
    labels = {name: at for name, at, _ in f.labels}
    label_lines: dict[int, int] = {}  # instruction index -> line of the first label before it
    for _, at, line in f.labels:
        label_lines.setdefault(at, line)
    by_address = {ins.address: ins.index for ins in instructions}

    def resolve(ins: SassInstruction) -> int | None:
        target = ins.target
        if target is None:
            return None
        if target.startswith("0x"):
            index = by_address.get(int(target, 16))
        else:
            index = labels.get(target)
        if index is None and not target.startswith(("$", "0x")) and target not in labels:
            raise ParseError(f"branch to unknown label {target!r}", line=ins.line, stage="sass")
        return index if index is not None and index < len(instructions) else None  # None: leaves

    leaders = {0}
    targets: dict[int, int | None] = {}
    tables: dict[int, list[int]] = {}  # an indirect branch -> the instructions its jump table names
    for ins in instructions:
        if ins.opcode in BRANCHES or ins.opcode in STOPS:
            targets[ins.index] = resolve(ins) if ins.opcode in BRANCHES else None
            if targets[ins.index] is not None:
                leaders.add(targets[ins.index])  # type: ignore[arg-type]
            leaders.add(ins.index + 1)
        if ins.jump_targets:
            tables[ins.index] = [labels[label] for label in ins.jump_targets
                                 if label in labels and labels[label] < len(instructions)]
            leaders.update(tables[ins.index])
    starts = sorted(x for x in leaders if x < len(instructions))
    block_at = {first: b for b, first in enumerate(starts)}
    last_line = instructions[-1].line if instructions else f.start
    blocks = []
    for b, first in enumerate(starts):
        last = starts[b + 1] if b + 1 < len(starts) else len(instructions)
        start_line = label_lines.get(first, instructions[first].line)
        if b == 0:
            start_line = f.start
        end_line = (label_lines.get(starts[b + 1], instructions[starts[b + 1]].line) - 1
                    if b + 1 < len(starts) else last_line)
        tail = instructions[last - 1]
        succ: list[int] = []
        if tail.index in tables:
            succ.extend(block_at[first] for first in tables[tail.index])
        if tail.index in targets:
            if targets[tail.index] is not None:
                succ.append(block_at[targets[tail.index]])  # type: ignore[index]
            if _conditional(tail) and b + 1 < len(starts):
                succ.append(b + 1)
        elif b + 1 < len(starts):
            succ.append(b + 1)
        label = next((name for name, at in labels.items() if at == first), None)
        blocks.append(Block(b, label, start_line, end_line, tuple(dict.fromkeys(succ)), first, last))
    return SassFunction(f.name, f.start, last_line, tuple(instructions), labels, build_cfg(blocks))

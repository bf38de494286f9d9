"""AMDGCN assembly as Triton's HIP backend keeps it (`kernel.amdgcn`: LLVM's AMDGPU AsmPrinter output).

Three parts are read:
- the kernel's code: instructions, `.LBB0_N:` labels, `s_branch` / `s_cbranch_*` (conditional) /
  `s_endpgm` / `s_setpc_b64`, and `.loc` lines for the source; cut into blocks for the CFG (the loop
  latch is often laid out before its header, as LLVM rotates loops: the CFG does not care);
- LLVM's resource report, the `; Key: value` comments after the function (`; NumVgprs: 62`, ...);
- the code-object notes (`.amdgpu_metadata` YAML): `.vgpr_count`, `.sgpr_count`, `.agpr_count`,
  `.vgpr_spill_count`, `.sgpr_spill_count`, `.private_segment_fixed_size`, `.group_segment_fixed_size`,
  `.wavefront_size` — what the runtime reads from the hsaco. The two are independent witnesses of the
  same numbers (facts/amd.py compares them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ttinspect.errors import ParseError
from ttinspect.dialects.cfg import CFG, Block, CFGFunction, KernelModule, build_cfg
from ttinspect.dialects.operands import split_operands

# 	v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[26:27], v[0:15]
# 	s_waitcnt vmcnt(0) lgkmcnt(0)                 ; a trailing comment is dropped
INSTRUCTION_RE = re.compile(r"^\s+([a-z][a-z0-9_]*)(?:\s+([^;]*?))?\s*(?:;.*)?$")
# .LBB0_33:                               ; =>This Inner Loop Header: Depth=1
LABEL_RE = re.compile(r"^([.$\w]+):\s*(?:;.*)?$")
# 	.type	matmul_opt_kernel,@function
TYPE_RE = re.compile(r"^\s*\.type\s+([\w.$]+)\s*,\s*@function")
# .Lfunc_end0:
FUNC_END_RE = re.compile(r"^\.Lfunc_end\d+:")
# ; NumVgprs: 62        ; ScratchSize: 0        ; Occupancy: 8
REPORT_RE = re.compile(r"^;\s*(\w+):\s*(\d+)\s*$")
#   - .agpr_count:     0        /     .vgpr_count:     62     (kernel-level keys of the notes)
NOTE_RE = re.compile(r"^  (?:- |  )\.([a-z_]+):\s+(\S.*?)\s*$")

BRANCH = "s_branch"
STOPS = frozenset({"s_endpgm", "s_setpc_b64", "s_trap"})
# matrix-core instructions: MFMA (CDNA), sparse SMFMAC, WMMA / SWMMAC (RDNA)
MATRIX_PREFIXES = ("v_mfma", "v_smfmac", "v_wmma", "v_swmmac")


@dataclass(frozen=True)
class AmdgcnInstruction:
    index: int
    line: int  # 1-based line in the text
    mnemonic: str  # "global_load_dwordx4"
    operands: tuple[str, ...]  # modifiers stay in the last operand: "off offset:64"
    target: str | None  # a branch's label
    # LLVM's `; 4-byte Folded Spill` / `; 8-byte Folded Reload` on a scratch or buffer access: a register
    # spill, not a load or store of the kernel's data (gfx90a spills through plain buffer_store_dword)
    spill: bool = False

    @property
    def is_tensor_core(self) -> bool:
        return self.mnemonic.startswith(MATRIX_PREFIXES)

    @property
    def is_branch(self) -> bool:
        return self.mnemonic == BRANCH or self.mnemonic.startswith("s_cbranch_")


@dataclass(frozen=True, eq=False)
class AmdgcnFunction(CFGFunction[AmdgcnInstruction]):
    name: str
    start_line: int
    end_line: int
    instructions: tuple[AmdgcnInstruction, ...]
    labels: dict[str, int]  # label -> index of the instruction that follows it
    cfg: CFG

    TENSOR_CORE_OPS = "matrix-core instructions (v_mfma, v_wmma, ...)"


@dataclass(frozen=True, eq=False)
class AmdgcnModule(KernelModule):
    functions: tuple[AmdgcnFunction, ...]
    report: dict[str, int]  # LLVM's resource report: "NumVgprs" -> 62, ...
    notes: dict[str, str]  # the code-object notes of the kernel: "vgpr_count" -> "62", ...
    target: str | None  # from `.amdgcn_target "amdgcn-amd-amdhsa--gfx942"`: "gfx942"

    @property
    def kernel(self) -> AmdgcnFunction | None:
        return self.functions[0] if self.functions else None

    def note_int(self, key: str) -> int | None:
        value = self.notes.get(key)
        return int(value) if value is not None and value.lstrip("-").isdigit() else None


@dataclass
class _Open:
    name: str
    start: int
    instructions: list[AmdgcnInstruction]
    labels: list[tuple[str, int, int]]  # name, index of the next instruction, line
    end: int = 0


def parse_amdgcn(text: str) -> AmdgcnModule:
    lines = text.split("\n")
    names: set[str] = set()
    done: list[_Open] = []
    current: _Open | None = None
    report: dict[str, int] = {}
    notes: dict[str, str] = {}
    in_notes = False
    target = None
    for no, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        c = raw[0]
        if in_notes:
            if raw.strip() == ".end_amdgpu_metadata":
                in_notes = False
            else:
                m = NOTE_RE.match(raw)
                if m and m[1] not in notes and not notes.get("_done"):
                    notes[m[1]] = m[2]
                elif raw.startswith("  - ") and notes:  # a second kernel's notes: keep the first's
                    notes["_done"] = "1"
            continue
        if c == ";":
            m = REPORT_RE.match(raw)
            if m and m[1] not in report:
                report[m[1]] = int(m[2])
            continue
        stripped = raw.strip()
        if stripped.startswith(";"):  # an indented comment: `                ; -- End function`
            continue
        if stripped.startswith("."):
            if stripped == ".amdgpu_metadata":
                in_notes = True
            elif stripped.startswith(".amdgcn_target"):
                found = re.search(r"(gfx\w+)", stripped)
                target = found[1] if found else None
            m = TYPE_RE.match(raw)
            if m:
                names.add(m[1])
            elif current is not None and FUNC_END_RE.match(raw):
                current.end = no
                done.append(current)
                current = None
            elif c != "\t" and c != " ":
                m = LABEL_RE.match(raw)
                if m and current is not None:
                    current.labels.append((m[1], len(current.instructions), no))
            continue
        if c not in "\t ":
            m = LABEL_RE.match(raw)
            if m and m[1] in names:
                current = _Open(m[1], no, [], [])
            elif m and current is not None:
                current.labels.append((m[1], len(current.instructions), no))
            continue
        if current is not None:
            current.instructions.append(_instruction(raw, no, len(current.instructions)))
    if current is not None:
        current.end = len(lines)
        done.append(current)
    notes.pop("_done", None)
    functions = tuple(_build(f) for f in done if f.instructions)
    return AmdgcnModule(functions, report, notes, target)


def _instruction(raw: str, no: int, index: int) -> AmdgcnInstruction:
    m = INSTRUCTION_RE.match(raw)
    if m is None:
        raise ParseError(f"cannot read AMDGCN instruction {raw.strip()[:60]!r}", line=no, stage="amdgcn")
    mnemonic = m[1]
    operands = split_operands(m[2] or "")
    target = None
    if (mnemonic == BRANCH or mnemonic.startswith("s_cbranch_")) and operands:
        target = operands[-1].split()[0]
    comment = raw.split(";", 1)[1] if ";" in raw else ""
    spill = mnemonic.startswith("scratch_") or ("Spill" in comment or "Reload" in comment)
    return AmdgcnInstruction(index, no, mnemonic, operands, target, spill)


def _build(f: _Open) -> AmdgcnFunction:
    instructions = f.instructions
    labels = {name: at for name, at, _ in f.labels}
    label_lines: dict[int, int] = {}
    for _, at, line in f.labels:
        label_lines.setdefault(at, line)
    leaders = {0}
    targets: dict[int, int | None] = {}
    for ins in instructions:
        if ins.is_branch or ins.mnemonic in STOPS:
            index = None
            if ins.is_branch:
                if ins.target not in labels:
                    raise ParseError(f"branch to unknown label {ins.target!r}", line=ins.line, stage="amdgcn")
                index = labels[ins.target]
                if index >= len(instructions):
                    index = None
            targets[ins.index] = index
            if index is not None:
                leaders.add(index)
            leaders.add(ins.index + 1)
    for at in labels.values():  # a label starts a block even when only fallen into
        leaders.add(at)
    starts = sorted(x for x in leaders if x < len(instructions))
    block_at = {first: b for b, first in enumerate(starts)}
    last_line = instructions[-1].line if instructions else f.start
    blocks = []
    for b, first in enumerate(starts):
        last = starts[b + 1] if b + 1 < len(starts) else len(instructions)
        start_line = f.start if b == 0 else label_lines.get(first, instructions[first].line)
        end_line = (label_lines.get(starts[b + 1], instructions[starts[b + 1]].line) - 1
                    if b + 1 < len(starts) else last_line)
        tail = instructions[last - 1]
        succ: list[int] = []
        if tail.index in targets:
            if targets[tail.index] is not None:
                succ.append(block_at[targets[tail.index]])  # type: ignore[index]
            if tail.mnemonic.startswith("s_cbranch_") and b + 1 < len(starts):
                succ.append(b + 1)
        elif b + 1 < len(starts):
            succ.append(b + 1)
        label = next((name for name, at in labels.items() if at == first), None)
        blocks.append(Block(b, label, start_line, end_line, tuple(dict.fromkeys(succ)), first, last))
    return AmdgcnFunction(f.name, f.start, max(f.end, last_line), tuple(instructions), labels, build_cfg(blocks))

"""Facts read from the PTX: what the kernel does, and what one iteration of its main loop does.

Pure: a parsed PtxModule in, Facts out. Per-iteration counts are the instructions of the main loop's
blocks (the innermost loop holding the tensor-core instructions), i.e. one trip around it.

Speed (benchmarks/facts_speed.py, docs/perf.md): decoding every instruction (predicate, opcode,
modifiers, operands) and re-testing mnemonics in ~20 passes cost twelve times the parse, yet the facts
read only a few kinds of instruction (about one in five in a matmul) and the operands of fewer still.
So `PtxView.of` keeps only the instructions whose line holds one of `RELEVANT`'s substrings — every
instruction a fact reads does, since its mnemonic is a substring of its line — as `Op`s: predicate
and mnemonic read with the head of the parser's own pattern, operands split only where a fact needs
them, the full `Instruction` decoded on demand. The whole kernel, decoded, is still there:
`PtxView.all` / `.loop` / `.after_loop`, on demand.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Iterable

from ttinspect.dialects.cfg import Loop
from ttinspect.dialects.ptx import (INSTRUCTION_RE, TENSOR_CORE_PREFIXES, Instruction, PtxFunction, PtxModule,
                         split_operands)
from ttinspect.facts.model import Fact, counts, known, loop_fact

# cp.async.cg.shared.global [%r1 + 0], [%rd1 + 0], 0x10, %r2;   (the third operand: bytes per copy)
_SIZE_RE = re.compile(r"^(0x[0-9a-fA-F]+|\d+)$")

# Every instruction some fact (here or in pipeline.py) reads has one of these in its mnemonic:
# cp.async* (copies, commit/wait groups, bulk/TMA), *mma* (mma, wgmma.*, tcgen05.mma), ldmatrix,
# bar / barrier / mbarrier, ld/st .global, rem, div, setp. A test on the raw line is a superset.
RELEVANT = re.compile(r"cp\.async|mma|ldmatrix|bar|\.global|rem|div|setp")
# The head of parse.ptx.INSTRUCTION_RE (which the parser matches on the stripped line): `@!%p1 ` and
# the mnemonic. Wherever the whole pattern matches a line, this reads the same predicate and mnemonic
# (the rest of the pattern never needs them shorter).
_HEAD_RE = re.compile(r"\s*(?:@(!?)([%\w$.]+)\s+)?([A-Za-z_][\w.:]*)")


class Op:
    """An instruction a fact reads: predicate and mnemonic; operands and the rest on first use."""

    __slots__ = ("index", "line", "predicate", "negated", "mnemonic", "opcode", "inline_asm", "_kernel",
                 "_text", "_modifiers", "_operands", "_instruction")

    def __init__(self, kernel: PtxFunction, index: int, line: int, predicate: str | None, negated: bool,
                 mnemonic: str, inline_asm: bool, text: str | None = None):
        # one plain assignment each: this runs for every op of every kernel, and is most of the time
        self._kernel = kernel
        self.index = index
        self.line = line
        self.predicate = predicate
        self.negated = negated
        self.mnemonic = mnemonic
        self.opcode = mnemonic.partition(".")[0]
        self.inline_asm = inline_asm
        self._text = text
        self._modifiers: tuple[str, ...] | None = None
        self._operands: tuple[str, ...] | None = None
        self._instruction: Instruction | None = None

    @property
    def modifiers(self) -> tuple[str, ...]:
        if self._modifiers is None:
            self._modifiers = tuple(self.mnemonic.split(".")[1:])
        return self._modifiers

    @classmethod
    def of(cls, instruction: Instruction, kernel: PtxFunction | None = None) -> "Op":
        op = cls(kernel, instruction.index, instruction.line, instruction.predicate,  # type: ignore[arg-type]
                 instruction.negated, instruction.mnemonic, instruction.inline_asm)
        op._instruction = instruction
        return op

    @property
    def instruction(self) -> Instruction:
        """The parser's full decode (operands, .loc)."""
        if self._instruction is None:
            self._instruction = self._kernel.instruction(self.index)
        return self._instruction

    @property
    def operands(self) -> tuple[str, ...]:
        """As `instruction.operands`, read with the parser's own pattern and splitter, without the rest."""
        if self._operands is None:
            m = INSTRUCTION_RE.match(self._text.strip()) if self._text is not None else None
            self._operands = split_operands(m[4]) if m else self.instruction.operands  # or its ParseError
        return self._operands

    @property
    def is_tensor_core(self) -> bool:
        return (self.mnemonic + ".").startswith(TENSOR_CORE_PREFIXES)  # as Instruction.is_tensor_core

    def __repr__(self) -> str:
        guard = f"@{'!' * self.negated}{self.predicate} " if self.predicate else ""
        return f"Op(line {self.line}: {guard}{self.mnemonic})"


@dataclass(frozen=True)
class PtxView:
    """The kernel's instructions that facts read (`ops`), split into the main loop and the rest."""

    ops: tuple[Op, ...]  # the RELEVANT instructions of the kernel, in text order
    loop_ops: tuple[Op, ...]  # those in the main loop (empty when there is none)
    after_ops: tuple[Op, ...]  # those after the loop's last line (the drain)
    has_loop: bool
    loop_reason: str
    kernel: PtxFunction | None = field(default=None, repr=False, compare=False)
    loop_indices: frozenset[int] = field(default=frozenset(), repr=False, compare=False)
    loop_end_line: int = 0
    loop_first_line: int = 0  # the line of the loop's first instruction (0 when none)

    @staticmethod
    def of(module: PtxModule) -> "PtxView":
        kernel = module.kernel
        if kernel is None:
            return PtxView((), (), (), False, "the PTX has no .entry kernel")
        ops = tuple(i for i in _decode_relevant(kernel) if not i.inline_asm or i.opcode != "bra")
        main = kernel.main_loop
        if main is None:
            return PtxView(ops, (), (), False, "the kernel has no loop", kernel)
        inside = frozenset(kernel.cfg.loop_instructions(main.loop))
        loop = tuple(i for i in ops if i.index in inside)
        after = tuple(i for i in ops if i.index not in inside and i.line > main.end_line)
        first = next((i.line for i in map(kernel.instruction, sorted(inside))
                      if not i.inline_asm or i.opcode != "bra"), 0)
        return PtxView(ops, loop, after, True, main.reason, kernel, inside, main.end_line, first)

    @staticmethod
    def per_loop(module: PtxModule) -> list[tuple["Loop", "PtxView"]]:
        """A view of every loop of the kernel (nested loops included), each over its *own* instructions
        (a nested loop's are the nested loop's): one trip around that loop."""
        kernel = module.kernel
        if kernel is None:
            return []
        ops = tuple(i for i in _decode_relevant(kernel) if not i.inline_asm or i.opcode != "bra")
        cfg = kernel.cfg
        out = []
        def loc(index: int):
            pos = kernel.source_pos(index)
            return None if pos is None else (pos.file, pos.line, pos.col)

        for loop in cfg.loops:
            inside = set(cfg.loop_instructions(loop))
            nested: set[int] = set()
            for child in loop.children:
                nested |= set(cfg.loop_instructions(cfg.loops[child]))
            inside -= nested
            if nested:
                # a nested loop's prologue copies and drain waits sit in this loop's blocks: those from the
                # nested loop's source locations are the nested loop's pipeline, not this loop's
                theirs = {loc(i) for i in nested} - {None}
                inside = {i for i in inside if loc(i) not in theirs}
            span = cfg.span(loop)
            own = frozenset(inside)
            first = next((i.line for i in map(kernel.instruction, sorted(own))
                          if not i.inline_asm or i.opcode != "bra"), 0)
            out.append((loop, PtxView(ops, tuple(i for i in ops if i.index in own),
                                      tuple(i for i in ops if i.index not in own and i.line > span.end_line), True,
                                      f"loop at PTX lines {span.start_line}-{span.end_line}", kernel, own,
                                      span.end_line, first)))
        return out

    # The whole kernel, every instruction decoded (slow; no fact needs it).
    @cached_property
    def all(self) -> tuple[Instruction, ...]:
        if self.kernel is None:
            return ()
        return tuple(i for i in self.kernel.instructions if not i.inline_asm or i.opcode != "bra")

    @cached_property
    def loop(self) -> tuple[Instruction, ...]:
        return tuple(i for i in self.all if i.index in self.loop_indices) if self.has_loop else ()

    @cached_property
    def after_loop(self) -> tuple[Instruction, ...]:
        if not self.has_loop:
            return ()
        return tuple(i for i in self.all if i.index not in self.loop_indices and i.line > self.loop_end_line)


def _decode_relevant(kernel: PtxFunction) -> list[Op]:
    lines = getattr(kernel, "_lines", None)
    at = getattr(kernel, "_ins_line", None)
    asm = getattr(kernel, "_ins_asm", None)
    if lines is None or at is None or asm is None:  # a parser without the raw lines: decode everything
        return [Op.of(i, kernel) for i in kernel.instructions]
    head = _HEAD_RE.match
    out = []
    for index, number in enumerate(at):
        text = lines[number - 1]
        # RELEVANT.search(text), spelled out: substring tests are twice as fast as the regex
        if not ("cp.async" in text or "mma" in text or "setp" in text or "bar" in text or ".global" in text
                or "ldmatrix" in text or "rem" in text or "div" in text):
            continue
        m = head(text)
        if m is None:  # not an instruction the parser can read: let it say so (ParseError, with the line)
            out.append(Op.of(kernel.instruction(index), kernel))
            continue
        out.append(Op(kernel, index, number, m[2], m[1] == "!", m[3], index in asm, text))
    return out


def _count(instructions: Iterable[Op], test: Callable[[Op], bool]) -> int:
    return sum(1 for i in instructions if test(i))


def _starts(prefix: str) -> Callable[[Op | Instruction], bool]:
    return lambda i: (i.mnemonic + ".").startswith(prefix + ".")


def first_immediate(instr: Op | Instruction) -> int | None:
    try:
        return int(instr.operands[0], 0)
    except (IndexError, ValueError):
        return None


def sorted_immediates(values: Iterable[int | None]) -> tuple[int | None, ...]:
    """Distinct immediates, ascending; an unreadable one (None) last instead of breaking the sort."""
    return tuple(sorted(set(values), key=lambda v: (v is None, v or 0)))


def _copy_bytes(instr: Op) -> str:
    size = instr.operands[2] if len(instr.operands) > 2 else ""
    return f"{int(size, 0)}B" if _SIZE_RE.match(size) else size


def _ldmatrix_form(instr: Op) -> str:
    mods = [m for m in instr.modifiers if m in ("x1", "x2", "x4", "trans")]
    return ".".join(mods) or "x1"


def _mma_shape(instr: Op) -> str:
    """mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 -> m16n8k16.row.col.f32.f16.f16.f32"""
    return ".".join(m for m in instr.modifiers if m not in ("sync", "aligned"))


def _wgmma_shape(instr: Op) -> str:
    """wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 -> m64n32k16.f32.f16.f16"""
    return ".".join(m for m in instr.modifiers if m not in ("mma_async", "sync", "aligned"))


def _global_width(instr: Op) -> str:
    """ld.global.v4.b32 / ld.global.nc.b16 / st.global.v2.b32 -> the vector width and element type."""
    keep = [m for m in instr.modifiers if m.startswith(("v", "b", "u", "s", "f")) and m != "global"]
    return ".".join([instr.opcode, "global", *keep])


class OpIndex:
    """Ops by opcode, built in one pass. `starting("cp.async.wait_group")` is every op whose mnemonic is
    that or goes on with a ".", i.e. what `_starts` tests: the leading "."-parts agree."""

    def __init__(self, ops: Iterable[Op]):
        self.ops = tuple(ops)
        self.by_opcode: defaultdict[str, list[Op]] = defaultdict(list)
        for op in self.ops:
            self.by_opcode[op.opcode].append(op)

    def starting(self, prefix: str) -> list[Op]:
        opcode, *rest = prefix.split(".")
        found = self.by_opcode.get(opcode, [])
        if not rest:
            return found
        n, want = len(rest), tuple(rest)
        return [op for op in found if op.modifiers[:n] == want]

    def count(self, prefix: str) -> int:
        return len(self.starting(prefix))


def tensor_core_path(view: PtxView) -> str:
    return _tensor_core_path(OpIndex(view.ops))


def _tensor_core_path(whole: OpIndex) -> str:
    if whole.count("tcgen05.mma"):
        return "tcgen05"
    if whole.count("wgmma.mma_async"):
        return "wgmma"
    if whole.count("mma"):
        return "mma.sync"
    return "none"


def ptx_facts(view: PtxView) -> list[Fact]:
    facts: list[Fact] = []
    loop, whole = OpIndex(view.loop_ops), OpIndex(view.ops)
    loads = [i for i in whole.starting("ld") if "global" in i.modifiers]

    def per_loop(key, title, group, value, explanation, source="ptx main loop"):
        facts.append(loop_fact(key, title, group, value, explanation, source, has_loop=view.has_loop,
                               loop_reason=view.loop_reason))

    # cp.async.cg.shared.global: opcode "cp", modifiers ("async", "cg", "shared", "global")
    plain_cp_async = [i for i in loop.starting("cp.async") if i.modifiers[1:2] in (("ca",), ("cg",))]
    per_loop("loop_cp_async", "cp.async per iteration", "pipeline",
             counts(f"{i.modifiers[1]}.{_copy_bytes(i)}" for i in plain_cp_async),
             "asynchronous global→shared copies issued per iteration (cg bypasses L1, ca caches in L1), "
             "with bytes per copy")
    per_loop("loop_commit_groups", "cp.async.commit_group per iteration", "pipeline",
             loop.count("cp.async.commit_group"),
             "commit groups closed per iteration: Triton closes one group per pipelined load")
    per_loop("loop_wait_group", "cp.async.wait_group in the loop", "pipeline",
             sorted_immediates(first_immediate(i) for i in loop.starting("cp.async.wait_group")),
             "cp.async.wait_group N blocks until at most N committed groups are still pending "
             "(it does not wait for N groups)")
    after = OpIndex(view.after_ops)
    per_loop("drain_wait_group", "cp.async.wait_group after the loop", "pipeline",
             tuple(first_immediate(i) for i in after.starting("cp.async.wait_group")),
             "waits after the loop; wait_group 0 drains every copy still in flight", source="ptx")
    facts.append(known("commit_groups", "cp.async.commit_group (whole kernel)", "pipeline",
                       whole.count("cp.async.commit_group"),
                       "all commit groups, prologue included: the prologue fills num_stages-1 stages",
                       "ptx"))
    per_loop("loop_bar_sync", "bar.sync per iteration", "pipeline",
             _count(loop.starting("bar") + loop.starting("barrier"), lambda i: "sync" in i.modifiers),
             "CTA-wide barriers per iteration (make copied tiles visible to all warps before use)")
    per_loop("loop_ldmatrix", "ldmatrix per iteration", "memory traffic",
             counts(_ldmatrix_form(i) for i in loop.starting("ldmatrix")),
             "shared→register loads of 8×8 b16 tiles (x4 = four tiles, .trans = transposed, for B)")
    per_loop("loop_mma", "mma.sync per iteration", "tensor cores",
             counts(_mma_shape(i) for i in loop.starting("mma")),
             "warp-level tensor-core MMAs per iteration (Ampere/Ada path), by shape and types")
    per_loop("loop_wgmma", "wgmma.mma_async per iteration", "tensor cores",
             counts(_wgmma_shape(i) for i in loop.starting("wgmma.mma_async")),
             "warpgroup (128-thread) asynchronous MMAs per iteration (Hopper), by shape; operands "
             "come from shared memory")
    per_loop("loop_wgmma_wait", "wgmma.wait_group in the loop", "tensor cores",
             sorted_immediates(first_immediate(i) for i in loop.starting("wgmma.wait_group")),
             "wgmma.wait_group N: wait until at most N wgmma groups are pending (1 = keep one "
             "iteration's MMAs in flight)")
    per_loop("loop_wgmma_sync", "wgmma fence / commit per iteration", "tensor cores",
             counts(i.modifiers[0]
                    for i in loop.starting("wgmma.fence") + loop.starting("wgmma.commit_group")),
             "wgmma.fence orders register/shared accesses before an MMA; commit_group closes a group")
    per_loop("loop_tcgen05_mma", "tcgen05.mma per iteration", "tensor cores",
             loop.count("tcgen05.mma"),
             "Blackwell tensor-core MMAs (accumulator in tensor memory) per iteration")
    per_loop("loop_tensor_core_ops", "tensor-core instructions per iteration (per K step)", "tensor cores",
             _count(loop.ops, lambda i: i.is_tensor_core),
             "MMA instructions one trip around the main loop issues, i.e. per BLOCK_K step")
    facts.append(known("tensor_core_path", "tensor-core path", "tensor cores", _tensor_core_path(whole),
                       "which MMA instructions the kernel uses: mma.sync (Ampere/Ada), wgmma (Hopper), "
                       "tcgen05 (Blackwell), none", "ptx"))
    facts.append(known("mbarrier_ops", "mbarrier operations", "pipeline",
                       counts(".".join(i.modifiers[:1]) for i in whole.starting("mbarrier")),
                       "shared-memory barriers that track TMA / tcgen05 completion (init = one per "
                       "buffer)", "ptx"))
    facts.append(known("tma_copies", "cp.async.bulk(.tensor) (TMA)", "memory traffic",
                       counts(".".join(i.modifiers[1:4]) for i in whole.starting("cp.async.bulk")),
                       "bulk copies done by the Tensor Memory Accelerator", "ptx"))
    facts.append(known("global_loads", "ld.global by width", "memory traffic",
                       counts(_global_width(i) for i in loads),
                       "direct global loads (v4.b32 = 16 bytes per thread)", "ptx"))
    facts.append(known("global_stores", "st.global by width", "memory traffic",
                       counts(_global_width(i) for i in whole.starting("st") if "global" in i.modifiers),
                       "global stores (v4.b32 = 16 bytes per thread)", "ptx"))
    facts.append(known("predicated_global_access", "predicated global loads/copies", "memory traffic",
                       _count(loads + whole.starting("cp.async"), lambda i: i.predicate is not None),
                       "loads and cp.async guarded by a predicate (a mask); cp.async may also zero-fill "
                       "through its src-size operand instead", "ptx"))
    facts.append(known("rem_div", "rem / div instructions", "program order",
                       counts(i.opcode + "." + i.modifiers[-1]
                              for i in whole.starting("rem") + whole.starting("div")
                              if i.modifiers and i.modifiers[-1][:1] in ("s", "u")),  # not div.f32
                       "integer remainders/divisions: pid remapping and modulo addressing cost these",
                       "ptx"))
    facts.append(known("setp", "setp (comparisons)", "program order", whole.count("setp"),
                       "predicate-setting comparisons in the whole kernel (masks, loop bounds)", "ptx"))
    return facts

"""A control-flow graph over basic blocks, with dominators and natural loops. Pure and dialect-free.

The dialect parsers (ptx.py, llir.py, sass.py) cut their text into blocks and say which block follows
which; this module does the rest. Loops are *natural loops*: a back edge is an edge u -> h whose target
h dominates u, and the loop of h is h plus every block that reaches u without passing through h. Loops
sharing a header are merged. This is what LLVM itself calls a loop, so it agrees with the
`// =>This Inner Loop Header: Depth=N` comments it leaves in PTX, whatever the block order (on sm_100
the latch is laid out *before* the header, which defeats any "first backward branch" rule).

Retreating edges to a block that does not dominate their source (irreducible flow) make no loop; they
are counted in `CFG.irreducible_edges`. Blocks unreachable from the entry belong to no loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Iterable, Protocol, Sequence, TypeVar


@dataclass(frozen=True)
class Block:
    index: int
    label: str | None  # the label that starts it, else None (entry, or after a branch)
    start_line: int  # 1-based, inclusive: the label line, or the first line after the previous block
    end_line: int  # 1-based, inclusive
    successors: tuple[int, ...]  # block indices, in branch-then-fallthrough order, no duplicates
    first: int = 0  # its instructions are [first, last) of the parser's instruction list
    last: int = 0

    @property
    def size(self) -> int:
        return self.last - self.first


@dataclass(frozen=True)
class Loop:
    index: int
    header: int  # block index
    blocks: tuple[int, ...]  # sorted block indices, header included
    latches: tuple[int, ...]  # sources of the back edges
    exits: tuple[int, ...]  # blocks outside the loop that a loop block branches to
    depth: int  # 1 for an outermost loop
    parent: int | None  # index of the enclosing loop
    children: tuple[int, ...]

    @property
    def innermost(self) -> bool:
        return not self.children


@dataclass(frozen=True)
class Span:
    """Where a loop lies in the text: first and last line of its blocks, and any lines in between that
    belong to blocks outside the loop (`gaps`, empty when the loop is laid out contiguously)."""

    start_line: int
    end_line: int
    gaps: tuple[tuple[int, int], ...]

    @property
    def contiguous(self) -> bool:
        return not self.gaps


@dataclass(frozen=True)
class CFG:
    blocks: tuple[Block, ...]
    predecessors: tuple[tuple[int, ...], ...]
    idom: tuple[int | None, ...]  # immediate dominator; None for the entry and unreachable blocks
    reachable: tuple[bool, ...]
    loops: tuple[Loop, ...]  # outer loops before the loops they contain
    irreducible_edges: int = 0
    _loop_of: tuple[int | None, ...] = field(default=(), repr=False)

    def dominates(self, a: int, b: int) -> bool:
        if not self.reachable[b]:
            return False
        node: int | None = b
        while node is not None:
            if node == a:
                return True
            node = self.idom[node]
        return False

    def loop_of(self, block: int) -> Loop | None:
        """The innermost loop holding this block."""
        index = self._loop_of[block] if self._loop_of else None
        return None if index is None else self.loops[index]

    def innermost_loops(self) -> tuple[Loop, ...]:
        return tuple(loop for loop in self.loops if loop.innermost)

    def span(self, loop: Loop) -> Span:
        members = set(loop.blocks)
        ordered = sorted(loop.blocks, key=lambda b: self.blocks[b].start_line)
        first, last = self.blocks[ordered[0]], self.blocks[ordered[-1]]
        gaps: list[tuple[int, int]] = []
        for block in self.blocks:
            if block.index in members or block.end_line < block.start_line:
                continue
            if first.start_line < block.start_line and block.end_line < last.end_line:
                if gaps and gaps[-1][1] + 1 == block.start_line:
                    gaps[-1] = (gaps[-1][0], block.end_line)
                else:
                    gaps.append((block.start_line, block.end_line))
        return Span(first.start_line, last.end_line, tuple(gaps))

    def loop_instructions(self, loop: Loop) -> list[int]:
        """Indices of the instructions of a loop's blocks (nested loops included), in text order."""
        out: list[int] = []
        for b in sorted(loop.blocks, key=lambda b: self.blocks[b].first):
            out.extend(range(self.blocks[b].first, self.blocks[b].last))
        return out


def build_cfg(blocks: Sequence[Block], entry: int = 0) -> CFG:
    """Dominators (Cooper, Harvey & Kennedy's iterative algorithm over reverse postorder) and natural
    loops of `blocks`, whose `index` must equal their position."""
    n = len(blocks)
    preds: list[list[int]] = [[] for _ in range(n)]
    for block in blocks:
        for succ in block.successors:
            preds[succ].append(block.index)
    if n == 0:
        return CFG((), (), (), (), ())
    order = _postorder(blocks, entry)
    rpo_number = [-1] * n
    for number, node in enumerate(reversed(order)):
        rpo_number[node] = number
    idom: list[int | None] = [None] * n
    idom[entry] = entry
    rpo = list(reversed(order))
    changed = True
    while changed:
        changed = False
        for node in rpo:
            if node == entry:
                continue
            new: int | None = None
            for p in preds[node]:
                if idom[p] is None:
                    continue
                new = p if new is None else _intersect(p, new, idom, rpo_number)
            if new is not None and idom[node] != new:
                idom[node] = new
                changed = True
    reachable = [rpo_number[i] >= 0 for i in range(n)]
    idom[entry] = None
    frozen_idom = tuple(idom)

    def dominates(a: int, b: int) -> bool:
        node: int | None = b
        while node is not None:
            if node == a:
                return True
            node = frozen_idom[node]
        return False

    bodies: dict[int, set[int]] = {}
    latches: dict[int, list[int]] = {}
    irreducible = 0
    for u in range(n):
        if not reachable[u]:
            continue
        for h in blocks[u].successors:
            if dominates(h, u):
                body = bodies.setdefault(h, {h})
                latches.setdefault(h, []).append(u)
                stack = [u]
                while stack:
                    x = stack.pop()
                    if x not in body:
                        body.add(x)
                        stack.extend(p for p in preds[x] if reachable[p])
            elif rpo_number[h] <= rpo_number[u]:
                irreducible += 1
    loops = _nest(blocks, bodies, latches)
    loop_of: list[int | None] = [None] * n
    for loop in loops:  # outer first, so inner loops overwrite
        for b in loop.blocks:
            loop_of[b] = loop.index
    return CFG(tuple(blocks), tuple(tuple(p) for p in preds), frozen_idom, tuple(reachable), loops,
               irreducible, tuple(loop_of))


def _postorder(blocks: Sequence[Block], entry: int) -> list[int]:
    seen = [False] * len(blocks)
    order: list[int] = []
    seen[entry] = True
    stack: list[tuple[int, Iterable[int]]] = [(entry, iter(blocks[entry].successors))]
    while stack:
        node, it = stack[-1]
        for succ in it:
            if not seen[succ]:
                seen[succ] = True
                stack.append((succ, iter(blocks[succ].successors)))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def _intersect(a: int, b: int, idom: list[int | None], rpo_number: list[int]) -> int:
    while a != b:
        while rpo_number[a] > rpo_number[b]:
            a = idom[a]  # type: ignore[assignment]
        while rpo_number[b] > rpo_number[a]:
            b = idom[b]  # type: ignore[assignment]
    return a


def _nest(blocks: Sequence[Block], bodies: dict[int, set[int]],
          latches: dict[int, list[int]]) -> tuple[Loop, ...]:
    # Larger bodies first: a loop's parent is the smallest earlier loop that contains its header.
    headers = sorted(bodies, key=lambda h: (-len(bodies[h]), blocks[h].start_line))
    index_of = {h: i for i, h in enumerate(headers)}
    parent: dict[int, int | None] = {}
    for i, h in enumerate(headers):
        best = None
        for j in range(i):
            outer = headers[j]
            if h in bodies[outer] and bodies[h] <= bodies[outer]:
                if best is None or len(bodies[outer]) < len(bodies[headers[best]]):
                    best = j
        parent[h] = best
    depth: dict[int, int] = {}
    for h in headers:  # parents come first
        p = parent[h]
        depth[h] = 1 if p is None else depth[headers[p]] + 1
    children: dict[int, list[int]] = {i: [] for i in range(len(headers))}
    for h in headers:
        if parent[h] is not None:
            children[parent[h]].append(index_of[h])  # type: ignore[index]
    loops = []
    for i, h in enumerate(headers):
        body = bodies[h]
        exits = sorted({s for b in body for s in blocks[b].successors if s not in body})
        loops.append(Loop(i, h, tuple(sorted(body)), tuple(sorted(set(latches[h]))), tuple(exits),
                          depth[h], parent[h], tuple(children[i])))
    return tuple(loops)


# A loop of at most this many instructions is a spin (an mbarrier try-wait and its branch), never the
# "largest" loop of a kernel. SASS lays these out as one- or two-instruction self loops.
TRIVIAL_LOOP = 4


@dataclass(frozen=True)
class MainLoop:
    """The loop a reader of a stage wants to see, and why it was chosen."""

    loop: Loop
    span: Span
    tensor_ops: int  # tensor-core instructions in it (nested loops included)
    instructions: int
    rule: str  # "tensor-core": holds tensor-core ops; "largest": no loop does, the largest innermost one
    reason: str

    @property
    def start_line(self) -> int:
        return self.span.start_line

    @property
    def end_line(self) -> int:
        return self.span.end_line

    @property
    def depth(self) -> int:
        return self.loop.depth


def unreachable_tensor_ops(cfg: CFG, tensor_ops_per_block: Sequence[int]) -> int:
    """Tensor-core ops in blocks no path from the entry reaches: code behind an indirect branch whose
    targets the text does not list. The loops holding them cannot be seen."""
    return sum(n for b, n in enumerate(tensor_ops_per_block) if n and not cfg.reachable[b])


def pick_main_loop(cfg: CFG, tensor_ops_per_block: Sequence[int], what: str) -> MainLoop | None:
    """The innermost loop holding tensor-core ops (most of them, then most instructions, then first in
    the text); else the innermost non-trivial loop with the most instructions; else None — also when
    no loop holds tensor-core ops but unreachable code does (`unreachable_tensor_ops`): any loop picked
    then would be some other loop (a warp-specialized kernel's register-retry spin, for one)."""
    if not cfg.loops:
        return None
    tensor = [sum(tensor_ops_per_block[b] for b in loop.blocks) for loop in cfg.loops]
    size = [sum(cfg.blocks[b].size for b in loop.blocks) for loop in cfg.loops]

    def first_line(i: int) -> int:
        return min(cfg.blocks[b].start_line for b in cfg.loops[i].blocks)

    with_tc = [i for i, loop in enumerate(cfg.loops)
               if tensor[i] and not any(tensor[c] for c in loop.children)]
    if with_tc:
        best = max(with_tc, key=lambda i: (tensor[i], size[i], -first_line(i)))
        others = len(with_tc) - 1
        reason = (f"innermost loop holding {what}: {tensor[best]} of them in {size[best]} instructions"
                  + (f" ({others} other such loop{'s' * (others > 1)} hold fewer)" if others else ""))
        rule = "tensor-core"
    elif unreachable_tensor_ops(cfg, tensor_ops_per_block):
        return None
    else:
        real = [i for i in range(len(cfg.loops)) if size[i] > TRIVIAL_LOOP]
        leaves = [i for i in real if not any(c in real for c in cfg.loops[i].children)]
        if not leaves:
            return None
        best = max(leaves, key=lambda i: (size[i], -first_line(i)))
        reason = (f"no loop holds {what}; the innermost loop with the most instructions "
                  f"({size[best]}, of {len(leaves)} innermost loop{'s' * (len(leaves) > 1)})")
        rule = "largest"
    loop = cfg.loops[best]
    return MainLoop(loop, cfg.span(loop), tensor[best], size[best], rule, reason)


class _Instruction(Protocol):  # what the main loop asks of a dialect's instruction
    @property
    def is_tensor_core(self) -> bool: ...


Ins = TypeVar("Ins", bound=_Instruction)


class CFGFunction(Generic[Ins]):
    """What a dialect's function (PtxFunction, LlFunction, SassFunction) reads off its CFG: blocks,
    loops, a loop's instructions and the main loop. The subclass is a dataclass with a `cfg` field and
    `instructions` (or its own `instruction(index)`), and names its tensor-core instructions in
    `TENSOR_CORE_OPS` for the main loop's reason."""

    cfg: CFG
    TENSOR_CORE_OPS: ClassVar[str]

    if TYPE_CHECKING:
        # Read-only to the readers: a subclass holds it as a dataclass field or computes it
        # (PtxFunction decodes on demand). Declared only for mypy: a real property here would shadow
        # the subclasses' fields, which a frozen dataclass then cannot set.
        @property
        def instructions(self) -> Sequence[Ins]: ...

    @property
    def blocks(self) -> tuple[Block, ...]:
        return self.cfg.blocks

    @property
    def loops(self) -> tuple[Loop, ...]:
        return self.cfg.loops

    def instruction(self, index: int) -> Ins:
        return self.instructions[index]

    def loop_instructions(self, loop: Loop) -> tuple[Ins, ...]:
        """The instructions of a loop's blocks (nested loops included), in text order."""
        return tuple(self.instruction(i) for i in self.cfg.loop_instructions(loop))

    def tensor_ops_per_block(self) -> list[int]:
        return [sum(self.instruction(i).is_tensor_core for i in range(b.first, b.last)) for b in self.blocks]

    @cached_property
    def main_loop(self) -> MainLoop | None:
        """The innermost loop holding tensor-core instructions, else the largest innermost loop, else
        None (`pick_main_loop`)."""
        return pick_main_loop(self.cfg, self.tensor_ops_per_block(), self.TENSOR_CORE_OPS)


class KernelModule:
    """What every parsed module offers once it knows its kernel function (`kernel`: the function whose
    loops and facts matter; None for text without one)."""

    kernel: Any

    @property
    def kernel_name(self) -> str | None:
        return self.kernel.name if self.kernel else None

    @property
    def main_loop(self) -> MainLoop | None:
        return self.kernel.main_loop if self.kernel else None

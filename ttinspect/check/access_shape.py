"""What an address's def-use chain says about the access pattern itself, beyond the hints of its
arguments — the cases where a narrow access is the data's shape, not a missing hint:
- a broadcast: the offsets along the layout's fastest dimension are divided (`absmax[offs // 32]`, a shift),
  so neighbouring elements read one address — there is no wider vector to load;
- a pitch fixed by the kernel: an argument enters the address plus a constant that is not a multiple of 16
  (`row * (n_cols + 1)`, a layout that packs an extra column), so no hint on the argument makes the rows
  16-aligned.
"""

from __future__ import annotations

from ttinspect.check.ssa import Chains, shape_of

_DIVIDING = {"arith.divsi": 2, "arith.divui": 2, "arith.shrsi": 1, "arith.shrui": 1}  # op -> least constant


def broadcast_along(chains: Chains, pointer: str, dimension: int) -> bool:
    """Whether the pointer's offsets along `dimension` come from a tl.arange divided by a constant."""
    upstream = dict(chains.upstream(pointer))
    rank = len(shape_of(upstream[pointer].type) or ()) if pointer in upstream else 0
    for name, value in upstream.items():
        least = _DIVIDING.get(value.op)
        if least is None or len(value.operands) != 2:
            continue
        divisor = chains.constant(value.operands[1])
        if divisor is None or divisor < least:
            continue
        if not any(v.op == "tt.make_range" for _, v in chains.upstream(value.operands[0])):
            continue
        if dimension in _dimensions(chains, name, rank, upstream):
            return True
    return False


def _dimensions(chains: Chains, name: str, rank: int, within: dict) -> set[int]:
    """The dimensions of the access (of rank `rank`) that a value's elements vary along: its own shape when
    it has the access's rank, else that of the first values of that rank computed from it on the way to the
    address (a 1-D `offs // 32` expanded with `[None, :]` lies along dimension 1)."""
    found: set[int] = set()
    todo, seen = [name], set()
    while todo:
        current = todo.pop()
        if current in seen or current not in within:
            continue
        seen.add(current)
        shape = shape_of(within[current].type)
        if shape is not None and len(shape) == rank:
            found |= {i for i, n in enumerate(shape) if n != 1}
            continue
        todo.extend(chains.users.get(current, ()))
    return found


def offset_arguments(chains: Chains, pointer: str) -> dict[str, int]:
    """Kernel argument -> the constant, not a multiple of 16, added to it on the way to the address."""
    found: dict[str, int] = {}
    for _, value in chains.upstream(pointer):
        if value.op != "arith.addi" or len(value.operands) != 2:
            continue
        for this, other in (value.operands, value.operands[::-1]):
            argument, added = chains.argument_of(this), chains.constant(other)
            if argument is not None and added is not None and added % 16:
                found[argument] = added
    return found

"""A kernel's TTIR read as a program the performance model can run on paper: its scalar integer arithmetic
(program ids, sizes, loop bounds) evaluated for given argument values and program ids, its loops with their
bounds, and each memory and compute op with the size of the tile it moves or computes.

Only what a launch fixes is evaluated: integer arguments, program ids, the grid. A value loaded from memory,
a loop-carried value or a float is unknown (None), and a loop whose bounds need one has no trip count — the
model then says which loop and why. TTIR (before the GPU passes) is read because its loops are the source's:
pipelining, which rewrites them, does not change how much work they do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

# %x = arith.addi %a, %b : i32     %acc:3 = scf.for ...     tt.store %p, %v : tensor<...>
_ITER_ARG_RE = re.compile(r"(%[\w$.-]+)\s*=\s*(%[\w$.#-]+)")
_OP_RE = re.compile(r'^\s*(?:(%[\w$.#-]+)(?::\d+)?\s*=\s*)?"?([a-z_]+\.[\w.]+)"?\s*(.*)$')
_NAME_RE = re.compile(r"%[\w$.-]+(?:#\d+)?")
_ARG_RE = re.compile(r"(%[\w$.-]+): ([^{,)]+?)\s*(?:\{[^}]*\})?\s*loc\(")
_FOR_RE = re.compile(r"scf\.for\s+(%[\w$.-]+)\s*=\s*(%[\w$.#-]+)\s+to\s+(%[\w$.#-]+)\s+step\s+(%[\w$.#-]+)")
_TENSOR_RE = re.compile(r"tensor<((?:\d+x)*)(!tt\.ptr<(\w+)>|\w+)")
_DESC_RE = re.compile(r"!tt\.tensordesc<((?:\d+x)*)(\w+)>")
_CONST_RE = re.compile(r"^(-?\d+|true|false)\s*:\s*(i\d+|index)\b")

ELEMENT_BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8,
                 "ptr": 8}


def element_bytes(name: str) -> int:
    if name.startswith(("f8", "F8")) or name.startswith("f8E"):
        return 1
    return ELEMENT_BYTES.get(name, 4)


def _numel(dims: str) -> int:
    n = 1
    for d in filter(None, dims.split("x")):
        n *= int(d)
    return n


def _c_div(a: int, b: int) -> int:  # C semantics (toward zero), as arith.divsi
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_BINARY: Mapping[str, Callable[[int, int], int | None]] = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b, "arith.muli": lambda a, b: a * b,
    "arith.divsi": lambda a, b: _c_div(a, b) if b else None, "arith.divui": lambda a, b: a // b if b else None,
    "arith.remsi": lambda a, b: a - b * _c_div(a, b) if b else None,
    "arith.remui": lambda a, b: a % b if b else None,
    "arith.ceildivsi": lambda a, b: -(-a // b) if b else None, "arith.floordivsi": lambda a, b: a // b if b else None,
    "arith.minsi": min, "arith.maxsi": max, "arith.minui": min, "arith.maxui": max,
    "arith.andi": lambda a, b: a & b, "arith.ori": lambda a, b: a | b, "arith.xori": lambda a, b: a ^ b,
    "arith.shli": lambda a, b: a << b, "arith.shrsi": lambda a, b: a >> b, "arith.shrui": lambda a, b: a >> b,
}
_CMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "slt": lambda a, b: a < b, "sle": lambda a, b: a <= b,
        "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b, "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b,
        "ugt": lambda a, b: a > b, "uge": lambda a, b: a >= b}
_CASTS = ("arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast", "arith.index_castui")
# Element-wise work on the SFU (transcendentals, division) rather than the FMA pipes.
SFU_OPS = frozenset({"math.exp", "math.exp2", "math.log", "math.log2", "math.sqrt", "math.rsqrt", "arith.divf",
                     "math.sin", "math.cos", "math.tanh", "math.erf", "tt.precise_sqrt", "tt.precise_divf"})


@dataclass
class Op:
    index: int
    name: str
    result: str | None
    operands: tuple[str, ...]
    text: str
    loops: tuple[int, ...]  # the op indices of the scf.for ops around it, outermost first
    in_region: bool  # inside a tt.reduce / tt.scan combine region (scalar code run per element)


@dataclass
class Loop:
    op: int
    iv: str
    lower: str
    upper: str
    step: str
    line: str
    carried: tuple[tuple[str, str], ...] = ()  # (iter_arg inside the loop, its initial value outside)


class _Names:
    """SSA names made unique: MLIR's printer reuses a name in sibling regions (two loops both define %x_14),
    so a use is resolved to the definition it sees — the innermost open region's, else the enclosing ones' —
    and a name defined again gets a suffix ($2, $3, ...) so one name means one value in the whole program."""

    def __init__(self, args: Mapping[str, str]):
        self.scopes: list[dict[str, str]] = [{name: name for name in args}]
        self.taken: dict[str, int] = {name: 1 for name in args}

    def open(self) -> None:
        self.scopes.append({})

    def close(self) -> None:
        if len(self.scopes) > 1:
            self.scopes.pop()

    def define(self, name: str) -> str:
        count = self.taken.get(name, 0) + 1
        self.taken[name] = count
        unique = name if count == 1 else f"{name}${count}"
        self.scopes[-1][name] = unique
        return unique

    def use(self, name: str) -> str:
        base, hash_, index = name.partition("#")  # %acc#1: the second result of a multi-result op
        for scope in reversed(self.scopes):
            if base in scope:
                return scope[base] + hash_ + index
        return name


@dataclass
class IrProgram:
    args: dict[str, str]  # name -> type text, in order
    ops: list[Op]
    loops: dict[int, Loop]
    scalar_ops: list[Op] = field(default_factory=list)
    # early returns left out of the count (the branch conditions that lead to them), see parse_ir_program
    early_exits: list[str] = field(default_factory=list)

    def evaluate(self, values: Mapping[str, Any], pid: tuple[int, int, int], grid: tuple[int, int, int],
                 ivs: Mapping[str, int] | None = None) -> dict[str, int | None]:
        """Every scalar integer SSA value for one program (and, for loop indices given, one iteration)."""
        env: dict[str, int | None] = {}
        for name in self.args:
            value = values.get(name[1:])
            env[name] = int(value) if isinstance(value, (int, bool)) else None
        env.update(ivs or {})
        for op in self.scalar_ops:
            if op.result is not None:
                env[op.result] = _scalar(op, env, pid, grid)
        return env

    def trips(self, loop: Loop, env: Mapping[str, int | None]) -> int | None:
        lo, hi, step = (env.get(n) for n in (loop.lower, loop.upper, loop.step))
        if lo is None or hi is None or not step or step < 0:
            return None
        return max(0, -(-(hi - lo) // step))


def _scalar(op: Op, env: Mapping[str, int | None], pid, grid) -> int | None:
    name, ops = op.name, op.operands
    if name == "arith.constant":
        m = _CONST_RE.match(op.text)
        if m is None:
            return None
        return {"true": 1, "false": 0}.get(m[1], None) if m[1] in ("true", "false") else int(m[1])
    if name in ("tt.get_program_id", "tt.get_num_programs"):
        axis = "xyz".index(op.text.split()[0]) if op.text.split() and op.text.split()[0] in "xyz" else 0
        return pid[axis] if name == "tt.get_program_id" else grid[axis]
    given = [env.get(o) for o in ops]
    args = [a for a in given if a is not None]
    if len(args) != len(given) or not args:
        return None
    if name in _BINARY and len(args) >= 2:
        return _BINARY[name](args[0], args[1])
    if name in _CASTS:
        return args[0]
    if name == "arith.cmpi":
        predicate = op.text.split(",")[0].strip()
        return int(_CMP[predicate](args[0], args[1])) if predicate in _CMP else None
    if name == "arith.select" and len(args) == 3:
        return args[1] if args[0] else args[2]
    return None


def _is_scalar_int(text: str) -> bool:
    """The op's result is an integer scalar (its type after the last ':' is iN / index)."""
    tail = text.rsplit(":", 1)[-1].strip() if ":" in text else ""
    tail = tail.split(" to ")[-1].strip()
    return bool(re.fullmatch(r"(i\d+|index)", tail))


def parse_ir_program(ttir: str) -> IrProgram:
    """The kernel function of a TTIR module (the public tt.func) as an IrProgram."""
    lines = ttir.splitlines()
    start = next((i for i, line in enumerate(lines) if "tt.func public" in line), None)
    if start is None:
        start = next(i for i, line in enumerate(lines) if "tt.func" in line)
    args = {m[1]: m[2].strip() for m in _ARG_RE.finditer(lines[start])}
    ops: list[Op] = []
    loops: dict[int, Loop] = {}
    early_exits: list[str] = []
    stack: list[tuple[str, int | None]] = []  # open regions: ("for", op index) / ("region", None)
    names = _Names(args)
    # `if cond: ...; return` lowers to blocks: `cf.cond_br %c, ^bb1, ^bb2`, ^bb1 ending in a tt.return before
    # ^bb2 (the rest of the kernel) begins. Such an early exit (liger's `if label == ignore_index: ... return`)
    # is left out: every program is counted as going on (its condition often reads memory); stopping at the
    # first tt.return counted only the exit's work, a third of liger's JSD.
    end = next((i for i in range(start + 1, len(lines)) if "tt.func" in lines[i]), len(lines))  # this function's
    last_block = max((i for i in range(start + 1, end) if lines[i].lstrip().startswith("^bb")), default=-1)
    block_start, branch = 0, ""
    for number, line in enumerate(lines[start + 1:], start=start + 1):
        text = re.sub(r"\s*loc\(#?[^)]*\)\s*$", "", line.strip())
        if not text:
            continue
        if text.startswith("}"):
            if stack:
                stack.pop()
                names.close()
            if text.endswith("{"):  # } else {   /   }, {
                stack.append(("region", None))
                names.open()
            continue
        if text.startswith("^bb"):
            block_start = len(ops)
            continue
        m = _OP_RE.match(text)
        if m is None:
            continue
        result, name, rest = m[1], m[2], m[3]
        loop_ids = tuple(i for kind, i in stack if kind == "for" and i is not None)
        in_region = any(kind == "reduce" for kind, _ in stack)
        f = _FOR_RE.search(text) if name == "scf.for" else None
        if f is not None:
            iter_args = text.split("iter_args(", 1)[1].split(")", 1)[0] if "iter_args(" in text else ""
            carried = _ITER_ARG_RE.findall(iter_args)
            bounds = tuple(names.use(n) for n in (f[2], f[3], f[4]))
            inits = tuple(names.use(init) for _, init in carried)
            op = Op(len(ops), name, names.define(result) if result else None, bounds + inits, rest, loop_ids, in_region)
            names.open()  # the index and the iter_args belong to the loop's region
            loops[op.index] = Loop(op.index, names.define(f[1]), bounds[0], bounds[1], bounds[2], text,
                                   tuple((names.define(inner), init) for (inner, _), init in zip(carried, inits,
                                                                                                  strict=True)))
            ops.append(op)
            stack.append(("for", op.index))
            continue
        operand_text = rest.split(":", 1)[0] if name != "scf.for" else rest
        operands = tuple(names.use(n) for n in _NAME_RE.findall(operand_text))
        if name == "tt.return" and not stack and number < last_block:  # an early exit: its block is left out
            early_exits.append(branch)
            del ops[block_start:]
            loops = {i: loop for i, loop in loops.items() if i < block_start}
            continue
        if name == "cf.cond_br":  # named by what it tests: `arith.cmpi eq, %label_1, %c-100_i64`
            used = _NAME_RE.findall(rest)
            tested = names.use(used[0]) if used else None
            found = next((o for o in reversed(ops) if o.result is not None and o.result == tested), None)
            branch = f"{found.name} {found.text.split(':', 1)[0].strip()}" if found else text
        op = Op(len(ops), name, names.define(result) if result else None, operands, rest, loop_ids, in_region)
        ops.append(op)
        if name == "tt.func" or name == "tt.return":
            break
        if name == "scf.for" or text.endswith("{") or text.endswith("({"):
            stack.append(("reduce" if name in ("tt.reduce", "tt.scan") else "region", None))
            names.open()
    program = IrProgram(args, ops, loops, early_exits=early_exits)
    program.scalar_ops = [op for op in ops if op.result and not op.in_region and op.name != "scf.for"
                          and _is_scalar_int(op.text)]
    return program


def tensor_bytes(text: str) -> int | None:
    """Bytes of the (first) tensor type in an op's type text: a tensor of pointers counts its pointee."""
    m = _TENSOR_RE.search(text)
    if m is None:
        return None
    element = m[3] or m[2]
    return _numel(m[1]) * element_bytes(element)


def last_tensor_bytes(text: str) -> int | None:
    found = list(_TENSOR_RE.finditer(text))
    if not found:
        return None
    m = found[-1]
    return _numel(m[1]) * element_bytes(m[3] or m[2])


def tensor_numel(text: str) -> int:
    found = list(_TENSOR_RE.finditer(text.rsplit(":", 1)[-1]))
    return _numel(found[-1][1]) if found else 1


def dot_shape(text: str) -> tuple[int, int, int, str] | None:
    """(M, N, K, input element type) of `tensor<MxKxA> * tensor<KxNxB> -> tensor<MxNxC>`."""
    found = list(_TENSOR_RE.finditer(text))
    if len(found) < 3:
        return None
    a, b = found[-3], found[-2]
    da, db = [int(x) for x in filter(None, a[1].split("x"))], [int(x) for x in filter(None, b[1].split("x"))]
    if len(da) < 2 or len(db) < 2:
        return None
    return da[-2], db[-1], da[-1], a[2]


def descriptor_bytes(text: str) -> int | None:
    m = _DESC_RE.search(text)
    return _numel(m[1]) * element_bytes(m[2]) if m else None

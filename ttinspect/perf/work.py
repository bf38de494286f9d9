"""How much work a launch does, read from its TTIR (ir_program.py) with the launch's values: per program, the
bytes its loads and stores move, its tensor-core FLOPs by input type, its element-wise ops; over the grid, the
bytes DRAM must deliver after the L2 shares tiles between programs that run at once.

L2 reuse is read from the code, not assumed: each load's address is traced back to the scalars that place it
(the program's tile coordinates: `pid_m * BLOCK_M`, a descriptor's indices, a row offset). Programs that run
together (one wave: SMs × CTAs per SM, in launch order) and load with equal placing scalars load the same tile
— DRAM delivers it once per wave. So a grouped (GROUP_SIZE_M) order, where a wave covers a compact block of
tiles, reads less from DRAM than a row-major one, and K/V tiles shared by a batch's query blocks are read
once — whatever the kernel is called. A load whose whole footprint fits in half the L2 is read from DRAM once.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from ttinspect.dialects.mlir import dot_input_precision
from ttinspect.perf.ir_program import (SFU_OPS, IrProgram, Loop, descriptor_bytes, dot_shape, last_tensor_bytes,
                                       tensor_bytes, tensor_numel)
from ttinspect.perf.library_math import mufu_per_element
from ttinspect.perf.masks import active_fraction, mask_operand

MAX_EVALUATED = 6144  # programs evaluated one by one; above it, three waves are sampled (start, middle, end)
LOADS = ("tt.load", "tt.descriptor_load", "tt.descriptor_gather")
STORES = ("tt.store", "tt.descriptor_store", "tt.descriptor_scatter")
ATOMICS = ("tt.atomic_rmw", "tt.atomic_cas", "tt.descriptor_reduce")


@dataclass
class Work:
    programs: int  # CTAs launched
    tc_flops: dict[str, float] = field(default_factory=dict)  # input dtype -> FLOPs on the matrix units
    fma_ops: float = 0.0  # element-wise ALU ops (all programs)
    sfu_ops: float = 0.0  # transcendentals and divisions
    load_bytes: float = 0.0  # requested by loads (all programs): what the L2 serves
    store_bytes: float = 0.0
    atomics: float = 0.0  # atomic element updates
    dram_bytes: float = 0.0  # after the L2's sharing between programs
    smem_operand_bytes: float = 0.0  # dot operands read from shared memory, each tile once (all programs)
    operand_bytes_by_dot: dict[tuple[int, int, int], float] = field(default_factory=dict)  # (M, N, K) -> the same
    loop_bytes_per_iteration: float = 0.0  # the innermost load loop's bytes per CTA per trip (latency hiding)
    loop_trips: float = 0.0  # its mean trips per program
    loop_trips_total: float = 0.0  # its trips summed over the launch (every program, every program-loop step)
    tiles: float = 0.0  # programs, or (program, step) pairs of a persistent kernel's loop over its work
    dot_feeds_elementwise: bool = False  # a loop's dot result is consumed by element-wise work in the same trip
    straight_bytes: float = 0.0  # bytes one program loads outside any loop (issued together)
    threads: int = 0  # per CTA: a tensor smaller than the CTA is computed by every thread holding a copy
    unknown: list[str] = field(default_factory=list)  # why something could not be counted


def _defs(program: IrProgram) -> tuple[dict, dict]:
    defs = {op.result: op for op in program.ops if op.result}
    carried = {inner: init for loop in program.loops.values() for inner, init in loop.carried}
    return defs, carried


def placing_scalars(program: IrProgram, op, program_ivs: set[str]) -> tuple[str, ...]:
    """The scalar SSA values an access's address is built from (pointer chain or descriptor indices); loop
    indices other than a program loop's are left out: they move every program alike."""
    defs, carried = _defs(program)
    scalars = {o.result for o in program.scalar_ops} | {n for n, t in program.args.items() if t.startswith("i")}
    ivs = {loop.iv for loop in program.loops.values()}
    found, seen = set(), set()
    todo = list(op.operands[:1] if op.name in ("tt.load", "tt.store") else op.operands)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in ivs:
            if name in program_ivs:
                found.add(name)
            continue
        if name in scalars:
            found.add(name)
            continue
        if name in carried:
            todo.append(carried[name])
        elif name in defs and defs[name].name not in ("scf.for",):
            todo.extend(defs[name].operands)
        else:
            found.add(name)  # a pointer argument: which tensor
    return tuple(sorted(found))


def _program_loop(program: IrProgram, grid) -> Loop | None:
    """A top-level loop whose start depends on the program id (a persistent kernel's loop over tiles or rows):
    each of its iterations is a program of its own for the L2 (iteration i of every CTA runs together)."""
    if grid[0] * grid[1] * grid[2] < 2:
        return None
    for loop in program.loops.values():
        if program.ops[loop.op].loops:
            continue
        return loop
    return None


def _pid(linear: int, grid) -> tuple[int, int, int]:
    x = linear % grid[0]
    y = (linear // grid[0]) % grid[1]
    return x, y, linear // (grid[0] * grid[1])


def count_work(program: IrProgram, values: dict, grid: tuple[int, int, int], wave: int, l2_bytes: int,
               threads: int = 0) -> Work:
    """The launch's work (see the module docstring). `wave`: CTAs the GPU runs at once; `threads`: per CTA (0:
    not known — element-wise work is then counted per element, without the copies below)."""
    total = grid[0] * grid[1] * grid[2]
    work = Work(total, threads=threads)
    env0 = program.evaluate(values, (0, 0, 0), grid)
    ploop = _program_loop(program, grid)
    if ploop is not None:
        env1 = program.evaluate(values, _pid(1, grid), grid)
        if env0.get(ploop.lower) == env1.get(ploop.lower):
            ploop = None
    program_ivs = {ploop.iv} if ploop else set()
    accesses = [op for op in program.ops if op.name in LOADS + STORES + ATOMICS and not op.in_region]
    keys_of = {op.index: placing_scalars(program, op, program_ivs) for op in accesses}
    shares = mask_shares(program, values, grid, accesses, ploop)
    work.dot_feeds_elementwise = dot_feeds_elementwise(program)

    # Which programs to evaluate: all, or three sampled waves.
    wave = max(1, wave)
    if total <= MAX_EVALUATED:
        chosen, scale = list(range(total)), 1.0
    else:
        starts = sorted({0, (total // 2 // wave) * wave, max(0, (total // wave - 1) * wave)})
        chosen = [p for s in starts for p in range(s, min(total, s + wave))]
        scale = total / len(chosen)

    per_access_keys: dict[int, dict[int, set]] = defaultdict(lambda: defaultdict(set))  # op -> wave -> keys
    footprint: dict[int, set] = defaultdict(set)
    per_access_bytes: dict[int, float] = {}
    trips_seen: list[float] = []
    inner = _innermost_load_loop(program)
    shapes: dict[tuple, float] = defaultdict(float)  # a program's loop trip counts -> how many programs
    for linear in chosen:
        pid = _pid(linear, grid)
        env = program.evaluate(values, pid, grid)
        virtual = [(linear // wave, env)]
        if ploop is not None:
            n = program.trips(ploop, env)
            if n is None:
                work.unknown.append(f"the loop over programs' work ({ploop.iv}) has no trip count from the arguments")
                return work
            start, step = env.get(ploop.lower), env.get(ploop.step)
            if start is None or step is None:
                work.unknown.append(f"the loop over programs' work ({ploop.iv}) has no start or step from the "
                                    "arguments")
                return work
            virtual = [(i * max(1, -(-total // wave)) + linear // wave,
                        program.evaluate(values, pid, grid, {ploop.iv: start + i * step})) for i in range(n)]
        work.tiles += len(virtual) * scale
        for slot, venv in virtual:
            trips = _trips(program, venv, ploop, work)
            if trips is None:
                return work
            shapes[trips] += scale
            for op in accesses:
                key = tuple(venv.get(n, n) for n in keys_of[op.index])
                per_access_keys[op.index][slot].add(key)
                footprint[op.index].add(key)
                per_access_bytes[op.index] = _access_bytes(op) * shares[op.index] * _multiplicity(op, trips)
            if inner is not None:
                trips_seen.append(_multiplicity_of_loop(inner[0], program, trips))
    for trips, count in shapes.items():
        for op in program.ops:
            if not op.in_region:
                m = _multiplicity(op, trips)
                if m:
                    _count(op, m * count, work, shares.get(op.index, 1.0))
    held: dict[tuple, float] = {}  # (placing scalars, bytes) of a load already counted -> one wave's footprint
    for op in accesses:
        if op.name in LOADS:
            each = per_access_bytes.get(op.index, 0.0)
            # a second load of the same tile by the same programs (a two-pass norm re-reading its row) is served
            # by the L2 when what one wave loaded of it still fits there
            signature = (keys_of[op.index], each)
            if signature in held and held[signature] <= l2_bytes / 2:
                continue
            held[signature] = max((len(k) for k in per_access_keys[op.index].values()), default=0) * each
            if len(footprint[op.index]) * each <= l2_bytes / 2:
                work.dram_bytes += len(footprint[op.index]) * each * (scale if total > MAX_EVALUATED else 1.0)
            else:
                work.dram_bytes += sum(len(k) for k in per_access_keys[op.index].values()) * each * scale
    work.dram_bytes += work.store_bytes  # every byte written reaches DRAM once
    if inner is not None and trips_seen:
        work.loop_trips = sum(trips_seen) / len(trips_seen)
        work.loop_trips_total = sum(trips_seen) * scale
        work.loop_bytes_per_iteration = sum(_access_bytes(op) * shares[op.index] for op in accesses
                                            if op.name in LOADS and op.loops and op.loops[-1] == inner[0])
    program_loop = {ploop.op} if ploop else set()
    work.straight_bytes = sum(_access_bytes(op) * shares[op.index] for op in accesses
                              if op.name in LOADS and set(op.loops) <= program_loop)
    return work


def dot_feeds_elementwise(program: IrProgram) -> bool:
    """Whether a dot inside a loop hands its result to element-wise work in the same trip (attention's
    scores → softmax → the next dot) rather than only to the next trip's accumulator (a matmul): then the
    warps wait on the tensor cores before their own instructions, and the two do not overlap."""
    users: dict[str, list] = defaultdict(list)
    for op in program.ops:
        for name in op.operands:
            users[name].append(op)
    for op in program.ops:
        if op.name in ("tt.dot", "tt.dot_scaled") and op.loops and op.result:
            for user in users.get(op.result, ()):
                accumulates = user.name in ("tt.dot", "tt.dot_scaled") and user.operands[-1:] == (op.result,)
                if user.name != "scf.yield" and not accumulates:
                    return True
    return False


def mask_shares(program: IrProgram, values: dict, grid, accesses: list, ploop) -> dict[int, float]:
    """Each access's share of elements its mask lets through (masks.py), over the launch: the first and the
    last program, each at its loops' first and last trip (a bound cuts the last tile of a row or of the grid;
    the trips between are whole), weighted by how many programs and trips each stands for."""
    masked = [op for op in accesses if mask_operand(op) is not None]
    if not masked:
        return {op.index: 1.0 for op in accesses}
    defs, carried = _defs(program)
    total = grid[0] * grid[1] * grid[2]
    shares = {op.index: 1.0 for op in accesses}
    for op in masked:
        weighted = 0.0
        for linear, weight in ((0, total - 1), (total - 1, 1)) if total > 1 else ((0, 1),):
            env = program.evaluate(values, _pid(linear, grid), grid)
            weighted += weight * _trip_share(program, op, values, _pid(linear, grid), grid, env, defs, carried, ploop)
        shares[op.index] = weighted / total
    return shares


def _trip_share(program: IrProgram, op, values, pid, grid, env, defs, carried, ploop) -> float:
    """One program's share for an access: its enclosing loops at their first trip, and the innermost also at
    its last, weighted by trips (a program loop's index at its start)."""
    loops = [program.loops[i] for i in op.loops if i in program.loops]
    if not loops:
        return active_fraction(op, env, defs, carried)
    first: dict[str, int] = {}
    for loop in loops:
        lower = program.evaluate(values, pid, grid, first).get(loop.lower)
        if lower is None:
            return 1.0
        first[loop.iv] = lower
    inner = loops[-1]
    env_first = program.evaluate(values, pid, grid, first)
    trips = program.trips(inner, env_first)
    share_first = active_fraction(op, env_first, defs, carried)
    if not trips or trips < 2 or env_first.get(inner.step) is None or (ploop is not None and inner.op == ploop.op):
        return share_first
    step = env_first.get(inner.step) or 0
    last = {**first, inner.iv: first[inner.iv] + (trips - 1) * step}
    share_last = active_fraction(op, program.evaluate(values, pid, grid, last), defs, carried)
    return ((trips - 1) * share_first + share_last) / trips


def _innermost_load_loop(program: IrProgram) -> tuple[int] | None:
    """The loop that holds the dots, else the deepest loop that loads: the one whose loads must be hidden."""
    dots = [op for op in program.ops if op.name == "tt.dot" and op.loops]
    loads = [op for op in program.ops if op.name in LOADS and op.loops]
    chosen = dots or loads
    if not chosen:
        return None
    return (max(chosen, key=lambda op: len(op.loops)).loops[-1],)


def _trips(program: IrProgram, env, ploop, work: Work) -> tuple | None:
    """((loop op index, trips), ...) for one (virtual) program; a program loop counts 1 (each iteration is
    a program of its own)."""
    out = []
    for index, loop in program.loops.items():
        if ploop is not None and index == ploop.op:
            out.append((index, 1.0))
            continue
        n = program.trips(loop, env)
        if n is None:
            work.unknown.append(f"the loop `{loop.line.split(' iter_args')[0].strip(' {')}` has no trip count from "
                                "the launch's values (its bounds come from memory, a loop-carried value or an "
                                "enclosing loop's index)")
            return None
        out.append((index, float(n)))
    return tuple(out)


def _multiplicity(op, trips: tuple) -> float:
    """How often one program runs the op: the product of its loops' trip counts."""
    table = dict(trips)
    m = 1.0
    for index in op.loops:
        m *= table[index]
    return m


def _multiplicity_of_loop(loop_index: int, program: IrProgram, trips: tuple) -> float:
    return _multiplicity(program.ops[loop_index], trips) * dict(trips)[loop_index]


OPERAND_BYTES = {"fp8": 1, "int8": 1, "fp16": 2, "bf16": 2}  # a dot's input element, by its peak's key (else 4)


def _access_bytes(op) -> float:
    if op.name in ("tt.descriptor_load", "tt.descriptor_gather"):
        return float(last_tensor_bytes(op.text) or descriptor_bytes(op.text) or 0)
    if op.name in ("tt.descriptor_store", "tt.descriptor_scatter", "tt.descriptor_reduce"):
        return float(last_tensor_bytes(op.text) or 0)
    if op.name in ("tt.atomic_rmw", "tt.atomic_cas"):
        return float(2 * (tensor_bytes(op.text) or 4))  # read and write
    return float(tensor_bytes(op.text) or _scalar_bytes(op.text))


def _scalar_bytes(text: str) -> int:
    m = re.search(r"!tt\.ptr<(\w+)>", text)
    return {"f16": 2, "bf16": 2, "f64": 8, "i64": 8}.get(m[1], 4) if m else 4


def _count(op, m: float, work: Work, share: float = 1.0) -> None:
    """Add one op's work, run `m` times; `share`: the part of an access its mask lets through."""
    name = op.name
    if name in LOADS:
        work.load_bytes += _access_bytes(op) * m * share
    elif name in STORES:
        work.store_bytes += _access_bytes(op) * m * share
    elif name in ATOMICS:
        work.atomics += tensor_numel(op.text) * m * share
        work.store_bytes += _access_bytes(op) * m * share
    elif name in ("tt.dot", "tt.dot_scaled"):
        shape = dot_shape(op.text)
        if shape is None:
            work.unknown.append(f"a dot whose operand shapes were not read: {op.text[:80]}")
            return
        mm, nn, kk, dtype = shape
        precision = dot_input_precision(op.text)  # none named: IEEE (Triton prints no default)
        key = {"f16": "fp16", "bf16": "bf16", "f32": "tf32" if precision == "tf32" else "fp32", "i8": "int8"}.get(
            dtype, "fp8" if dtype.lower().startswith("f8") else dtype)
        work.tc_flops[key] = work.tc_flops.get(key, 0.0) + 2.0 * mm * nn * kk * m
        operands = (mm * kk + kk * nn) * OPERAND_BYTES.get(key, 4) * m
        work.smem_operand_bytes += operands
        work.operand_bytes_by_dot[(mm, nn, kk)] = work.operand_bytes_by_dot.get((mm, nn, kk), 0.0) + operands
    elif "tensor<" in op.text.rsplit(":", 1)[-1] and op.result:
        # every thread computes at least one element: a 32-wide tile on 4 warps is computed 4 times over
        lanes = max(tensor_numel(op.text), work.threads)
        if name in SFU_OPS:
            work.sfu_ops += lanes * m
        elif name == "tt.extern_elementwise":  # a libdevice call: its MUFU ops (library_math.py)
            work.sfu_ops += mufu_per_element(op.text) * lanes * m
        elif name.startswith(("arith.", "math.")) and not name.startswith(("arith.constant", "arith.cmp")):
            work.fma_ops += lanes * m
        elif name in ("tt.reduce", "tt.scan"):
            work.fma_ops += tensor_numel(op.text.split("->")[0] if "->" in op.text else op.text) * m

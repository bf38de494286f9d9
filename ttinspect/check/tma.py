"""TTI007 no-tma: a Hopper/Blackwell kernel whose tensor-core dots get their tiles without the Tensor Memory
Accelerator — except a tile whose address is indirect, computed from data loaded from memory:
- rows gathered through a whole tensor of indices (a MoE kernel's `a_ptr + offs_token[:, None] // top_k *
  stride_am`, a decode kernel's `kv_loc` from its KV index list): a TMA tile copy moves one dense box and
  cannot gather rows on sm_90; from sm_100 TMA has gather4 (`desc.gather`);
- a base read from a table inside the same loop (a paged KV cache's page number from the block table each
  step): the tile's place in memory is only known once that load returns, every step, and consecutive pages
  are not one box; excepted on every target.
A scalar loaded once before the loop (an expert id) only moves a loop-invariant base: the tile stays dense,
and a descriptor coordinate can carry it. Where a loop streams tiles, a tile loaded once before it (a decode
kernel's queries) is not what the advice is about.
"""

from __future__ import annotations

from dataclasses import dataclass

from ttinspect.backends import backend_for
from ttinspect.check.context import fact_evidence, fact_value, stages_of
from ttinspect.check.model import Finding
from ttinspect.check.ssa import Chains, shape_of
from ttinspect.dialects.mlir import DEFINITION_RE

TMA_ID, TMA_SLUG = "TTI007", "no-tma"
# TMA gather4 (`cp.async.bulk.tensor.2d.tile::gather4`, Triton's `desc.gather(rows, col)`): measured with
# Triton 3.9 — emitted for sm_100 and sm_120, rejected by ptxas for sm_90.
TMA_GATHER_FROM = 100


def no_tma(report, build) -> list[Finding]:
    """Info: a target with TMA (sm_90+) and tensor-core dots, but no TMA copy anywhere."""
    if build is None or not backend_for(build.target).has_tma(build.target):  # TMA: NVIDIA sm_90+
        return []
    path, tma = fact_value(report, "tensor_core_path"), fact_value(report, "tma_copies")
    if path not in ("mma.sync", "wgmma", "tcgen05") or tma is None or len(tma):
        return []
    stages = stages_of(build)
    module = stages.ttgir
    if module is None or any("tma" in op.name or "descriptor" in op.name or "tensormap" in op.name
                             for op in module.ops):
        return []
    tiles = _dot_tile_loads(stages)
    gathered = [tile for tile in tiles if tile.index_lines]
    paged = [tile for tile in tiles if tile.table_lines and not tile.index_lines]
    dense = [tile for tile in tiles if not tile.index_lines and not tile.table_lines]
    if any(tile.in_loop for tile in tiles):
        # the tiles a loop streams are what TMA is for; one loaded once before it (a decode kernel's
        # queries) is one copy per program
        dense = [tile for tile in dense if tile.in_loop]
    gather4 = build.target.capability >= TMA_GATHER_FROM
    if not dense and (not gathered or not gather4):
        return []  # every tile is indirect: nothing a TMA box can do on this target
    parsed = stages.ptx
    evidence = [e for e in (fact_evidence(report, "tma_copies"), fact_evidence(report, "loop_cp_async"),
                            fact_evidence(report, "global_loads")) if e]
    if parsed is not None:
        _, view = parsed
        copies = [op for op in view.loop_ops if op.opcode in ("cp", "ld") and "global" in op.modifiers]
        evidence += [stages.evidence("ptx", op.line) for op in copies[:2]]
    evidence += [stages.evidence("ttir", tile.line, f"gathered rows: {tile.text}") for tile in gathered[:2]]
    name = build.target.name
    why = ("With TMA one thread issues a whole tile copy (cp.async.bulk.tensor) that the hardware completes on an "
           "mbarrier: no per-thread address arithmetic, no registers for addresses, and the copy engine works beside "
           "the tensor cores. cp.async / ld.global make every thread compute and issue its own 16-byte pieces.")
    # the template names the operand the advice is about: the dense one where the other gathers its rows
    b_only = bool(gathered) and all(tile.operand == 1 for tile in dense)
    x, rows, cols, stride = ("b", "K", "N", "stride_bk") if b_only else ("a", "M", "K", "stride_am")
    descriptors = (f"through tensor descriptors: on the host `TensorDescriptor.from_tensor({x}, [BLOCK_{rows}, "
                   f"BLOCK_{cols}])` (triton.tools.tensor_descriptor), passed as the argument, then "
                   f"`{x}_desc.load([offs_{rows.lower()}, offs_{cols.lower()}])` in the loop; or in the kernel "
                   f"`tl.make_tensor_descriptor({x}_ptr, shape=[{rows}, {cols}], strides=[{stride}, 1], "
                   f"block_shape=[BLOCK_{rows}, BLOCK_{cols}])` (needs `triton.set_allocator`). The shipped opt_tma "
                   "variant is an example.")
    title = f"{name} has the Tensor Memory Accelerator, but this {path} kernel loads its tiles without it"
    if paged:
        where = _lines_text(paged)
        title += f" (the tile{where} read through a table excepted)"
        why += (f" The tile{where} is addressed through a value loaded in the same loop{_lines_text(paged, True)} "
                "(a page number from a block table, say): its place in memory is known only once that load "
                "returns, every step, so it rightly stays a per-thread load.")
        evidence += [stages.evidence("ttir", tile.line, f"addressed through a table: {tile.text}")
                     for tile in paged[:2]]
    if not gathered:
        dense_only = f" dense tile{_lines_text(dense)} " if paged else " tiles "
        return [Finding(TMA_ID, TMA_SLUG, "info", title, tuple(evidence), why,
                        ("Keep the load read through the table as it is; load the" if paged else "Load the")
                        + dense_only + descriptors)]
    where = _lines_text(gathered)
    index = _lines_text(gathered, indices=True)
    if gather4:
        why += (f" The tile{where} gathers its rows through indices loaded from memory{index}: a plain TMA tile copy "
                f"moves one dense box, but {name} has TMA gather4, which fetches rows by index.")
        fix = ("For the gathered rows, a descriptor over the whole matrix with one-row blocks, `tl.make_tensor_"
               "descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=[1, BLOCK_K])`, and in the loop "
               "`a_desc.gather(rows, k * BLOCK_K)` with `rows` the tile's row indices (1-D int32, at least 8)."
               + (f" Load the dense tile{_lines_text(dense)} " + descriptors if dense else ""))
    else:
        title += f" (the gathered tile{where} excepted)"
        why += (f" The tile{where} gathers its rows through indices loaded from memory{index}: a TMA copy moves one "
                f"dense box and {name} cannot gather rows with it (TMA gather4 arrives with sm_100), so that load "
                "rightly stays cp.async.")
        fix = f"Keep the gathered load as it is; load the dense tile{_lines_text(dense)} " + descriptors
    return [Finding(TMA_ID, TMA_SLUG, "info", title, tuple(evidence), why, fix)]


@dataclass(frozen=True)
class _Tile:
    """A tt.load that feeds a dot operand: its TTIR line, text and Python line, and the Python lines of the
    per-row index loads its address comes from (none for a dense tile)."""

    line: int
    text: str
    python_line: int | None
    index_lines: tuple[int | None, ...]
    operand: int = 0  # which operand of the dot it feeds: 0 (A, M x K) or 1 (B, K x N)
    table_lines: tuple[int | None, ...] = ()  # scalar loads in the tile's own loop its address comes from
    in_loop: bool = True  # loaded inside a loop (streamed), not once before it


def _dot_tile_loads(stages) -> list[_Tile]:
    module = stages.ttir
    if module is None:
        return []
    chains = Chains(module)
    op_at_line = {op.line: op for op in module.ops}
    tiles: dict[int, _Tile] = {}
    for op in module.ops:
        match = DEFINITION_RE.match(module.text(op)) if op.name == "tt.dot" else None
        value = chains.values.get(match[1]) if match else None
        for position, operand in enumerate(value.operands[:2] if value is not None else ()):
            for _, load in chains.data_loads(operand):
                if load.line in tiles or not load.operands or not shape_of(load.type):
                    continue  # a scalar (a dequantization scale) is no tile
                indices = {stages.python_line("ttir", v.line) for v in chains.index_loads(load.operands[0])}
                loops = [(loop.op.line, loop.op.end_line) for loop in module.loops
                         if loop.op.line < load.line <= loop.op.end_line]
                table = {stages.python_line("ttir", v.line) for v in chains.loads_feeding(load.operands[0])
                         if not shape_of(v.type) and any(start < v.line <= end for start, end in loops)}
                tiles[load.line] = _Tile(load.line, module.text(op_at_line[load.line]).strip()[:120],
                                         stages.python_line("ttir", load.line), _sorted(indices), position,
                                         _sorted(table), bool(loops))
    return [tiles[line] for line in sorted(tiles)]


def _sorted(lines: set[int | None]) -> tuple[int | None, ...]:
    return tuple(sorted(lines, key=lambda line: line or 0))


def _lines_text(tiles: list[_Tile], indices: bool = False) -> str:
    """" on line 24" / " on lines 24, 25" / "" when attribution cannot tell."""
    found = sorted({line for tile in tiles
                    for line in ((*tile.index_lines, *tile.table_lines) if indices else (tile.python_line,))
                    if line is not None})
    if not found:
        return ""
    return f" on line{'s' * (len(found) > 1)} {', '.join(map(str, found))}"

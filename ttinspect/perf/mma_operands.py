"""How many bytes a dot's operands cost in shared memory, from the TTGIR's MMA layout: the warp split decides
how often each operand tile is read again.

A dot of M×N×K reads each operand tile once only in the ideal: its A tile (M·K) and its B tile (K·N). The
matrix instructions re-read them:

- wgmma (Hopper, `#nvidia_mma` version 3): one instruction is 64 rows × n columns × k (n: the layout's
  `instrShape[1]`), and every instruction reads its B slice (k × n) and, when A is in shared memory (a
  `!ttg.memdesc` operand, not a register tensor), its A slice (64 × k). Over the dot: B is read once per
  64-row slice of the tile, A once per n-wide column slice — M·N·K·(1/64 + [A in shared memory]/n) elements.
  A 256×128 tile (n = 128) thus reads 6/256 of M·N·K, a 128×256 one (n = 256) 5/256: 20 % more per FLOP.
- mma.sync (`#nvidia_mma` version 2): each warp loads (ldmatrix) the rows of A and the columns of B its part of
  the tile needs; with `warpsPerCTA = [wm, wn]`, A is read by the wn warps of a row and B by the wm warps of a
  column — K·(M·wn + N·wm) elements (an operand that is not loaded from shared memory is not counted).

Each dot's factor — its bytes under the layout ÷ (M·K + K·N) — is kept per dot shape; work.py's operand bytes
are multiplied by it (terms.py). A dot whose layout cannot be read keeps factor 1 (read once).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from ttinspect.errors import TTInspectError

_TYPES_RE = re.compile(r"(?:tensor|!ttg\.memdesc)<((?:\d+x)+)(\w+)(?:,\s*#([\w.]+))?")
_LIST_RE = re.compile(r"\[([\d,\s]+)\]")
WGMMA_ROWS = 64  # rows of one wgmma instruction (a warpgroup's m64)


def dot_operand_factors(ttgir: str) -> tuple[tuple[int, int, int, float], ...] | None:
    """((M, N, K, factor), ...) for each dot of the TTGIR with an `#nvidia_mma` result, in order; None when
    the TTGIR cannot be read."""
    from ttinspect.dialects.mlir import parse_mlir  # the TTGIR parser: only when a prediction is computed

    try:
        module = parse_mlir(ttgir)
    except (TTInspectError, ValueError):
        return None
    layouts = {name: dict(layout.params) for name, layout in module.layouts.items()
               if layout.kind.endswith("nvidia_mma")}
    computed = _computed(module)
    found = []
    for op in module.ops:
        if op.name not in ("tt.dot", "ttng.warp_group_dot"):
            continue
        text = module.text(op)
        factor = operand_factor(text, layouts, computed)
        if factor is not None:
            found.append(factor)
    return tuple(found)


def _computed(module) -> set[str]:
    """Values computed in registers (arithmetic, through layout conversions): a dot operand among them is not
    read from shared memory (attention's P); every other operand is (a local_load, or its prefetched copy
    carried by the loop)."""
    defs = {}
    for op in module.ops:
        m = re.match(r"\s*(%[\w$.-]+)\s*=\s*\S+\s+(%[\w$.-]+)?", module.text(op))
        if m:
            defs[m[1]] = (op.name, m[2])
    computed = set()
    for name in defs:
        seen, current = 0, name
        while current in defs and defs[current][0] == "ttg.convert_layout" and seen < 8:
            current, seen = defs[current][1], seen + 1
        if current in defs and defs[current][0].startswith(("arith.", "math.")):
            computed.add(name)
    return computed


def operand_factor(text: str, layouts: Mapping[str, Mapping[str, str]],
                   computed: set[str]) -> tuple[int, int, int, float] | None:
    """(M, N, K, factor) of one dot's line, or None when its shapes or layout are not read."""
    types = _TYPES_RE.findall(text.split(" : ", 1)[-1])
    if len(types) < 3:
        return None
    (a_dims, _, _), (b_dims, _, _), (_, _, result_layout) = types[-3], types[-2], types[-1]
    a = [int(d) for d in a_dims.split("x") if d]
    b = [int(d) for d in b_dims.split("x") if d]
    params = layouts.get(result_layout or "")
    if params is None or len(a) < 2 or len(b) < 2:
        return None
    m, k, n = a[-2], a[-1], b[-1]
    operands = re.findall(r"%[\w$.-]+", text.split("=", 1)[-1].split(" : ", 1)[0])
    a_text = text.split(" : ", 1)[-1].split(" * ", 1)[0]
    version = params.get("versionMajor", "").strip()
    warps = _ints(params.get("warpsPerCTA", ""))
    if version == "3":
        shape = _ints(params.get("instrShape", ""))
        if len(shape) < 2 or not shape[1]:
            return None
        a_in_smem = "!ttg.memdesc" in a_text
        elements = m * n * k * (1 / WGMMA_ROWS + (1 / shape[1] if a_in_smem else 0.0))
    elif version == "2" and len(warps) >= 2:
        a_in_smem = bool(operands) and operands[0] not in computed
        b_in_smem = len(operands) > 1 and operands[1] not in computed
        elements = k * (m * warps[-1] * a_in_smem + n * warps[-2] * b_in_smem)
    else:
        return None
    return m, n, k, elements / (m * k + k * n)


def _ints(text: str) -> list[int]:
    m = _LIST_RE.search(text)
    return [int(x) for x in m[1].split(",") if x.strip()] if m else []


def factor_by_shape(facts: Mapping[str, Any]) -> dict[tuple[int, int], list[float]]:
    """The `dot_operand_factors` fact as (M, N) -> its dots' factors. Keyed without K: the factor does not
    depend on it, and the TTGIR may split a TTIR dot along K (mma.sync's prefetch: two K/2 dots)."""
    found: dict[tuple[int, int], list[float]] = {}
    for entry in facts.get("dot_operand_factors") or ():
        m, n, _k, factor = entry
        found.setdefault((int(m), int(n)), []).append(float(factor))
    return found

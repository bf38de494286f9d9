"""What a change in a fact means — the one place the semantics of a difference live.

Each explainer gets the two reports and the two values and returns one correct line. Where doc 003
explains the same difference another way, docs/facts.md says where and why it differs.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from ttinspect.facts.model import format_value

_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f8E4M3FN": 1, "f8E5M2": 1, "i8": 1, "f64": 8, "i32": 4, "i64": 8}
_BUFFER_RE = re.compile(r"^(\d+(?:x\d+)*)x([a-zA-Z]+\d*\w*)$")


def tile_bytes(buffers: tuple[str, ...]) -> int | None:
    """Σ over ttg.local_alloc buffers of their element count × element size, e.g. 3x128x32xf16."""
    total = 0
    for buffer in buffers or ():
        m = _BUFFER_RE.match(buffer)
        if not m or m[2] not in _BYTES:
            return None
        size = 1
        for dim in m[1].split("x"):
            size *= int(dim)
        total += size * _BYTES[m[2]]
    return total


def _shared(a, b, before, after) -> str:
    parts = []
    for report, value in ((a, before), (b, after)):
        buffers = report["shared_buffers"]
        tiles = tile_bytes(buffers)
        if tiles is not None and buffers:
            extra = (value or 0) - tiles
            parts.append(" + ".join(buffers) + f" = {tiles} B" + (f" (+{extra} B other)" if extra > 0 else ""))
    why = "; ".join(parts)
    return (f"shared memory {before} → {after} B ({_ratio(before, after)}): the multi-buffered A/B tiles "
            f"— {why}" if why else f"shared memory {before} → {after} B ({_ratio(before, after)})")


def _ratio(before: Any, after: Any) -> str:
    if isinstance(before, int) and isinstance(after, int) and before:
        return f"×{after / before:.3g}"
    return "changed"


def _depth(a, b, before, after) -> str | None:
    if not isinstance(before, int) or not isinstance(after, int):
        return None
    ahead = max(after - 1, 0)
    return (f"pipeline depth {before} → {after}: the loop now loads {ahead} K step{'s' * (ahead != 1)} ahead (was "
            f"{max(before - 1, 0)}); while it waits for one step's tiles, {_copies(max(after - 2, 0))} "
            f"stay in flight. Each stage is one more buffer per operand in shared memory "
            f"({after - before:+d} here)")


def _copies(steps: int) -> str:
    """`no other step's copies`, `1 more step's copies`, `2 more steps' copies`: the count agrees."""
    if steps == 0:
        return "no other step's copies"
    return "1 more step's copies" if steps == 1 else f"{steps} more steps' copies"


def _num_stages(a, b, before, after) -> str:
    return (f"num_stages {before} → {after} as configured; `pipeline depth` shows what the compiled loop does "
            "with it (a kernel without a pipelined loop ignores it)")


def _wait(a, b, before, after) -> str | None:
    if not before or not after:
        return None
    return (f"cp.async.wait_group {format_value(before)} → {format_value(after)}: each iteration now "
            f"waits until at most {format_value(after)} commit groups are still pending (was "
            f"{format_value(before)}), i.e. (num_stages − 2) × loads per iteration. It does not wait for "
            f"{format_value(after)} groups to complete, as doc 003 §2.2 says")


def _group(a, b, before, after) -> str:
    if before is None:
        return (f"GROUP_SIZE_M {after}: programs are remapped so that {after} rows of C tiles are walked "
                "column by column; neighbouring programs reuse the same A rows and B columns while they are "
                "in L2 (the hit rate is a GPU measurement: `ttinspect profile`)")
    if after is None:
        return f"GROUP_SIZE_M {before} → none: programs no longer walk tiles in L2-friendly groups"
    return f"GROUP_SIZE_M {before} → {after}: tile rows per group in the pid remapping"


def _modulo(a, b, before, after) -> str:
    if not before and after:
        return (f"address modulo: {after} `%` on offset vectors; rows/columns past M/N wrap onto valid "
                "ones, so the loads need no M/N mask (the store still masks them)")
    return f"address modulo: {before} → {after} `%` on offset vectors"


def _masks(a, b, before, after) -> str:
    return (f"mask comparisons per load {format_value(before)} → {format_value(after)}: "
            "2 = both the M/N edge and the K edge are checked on every load, 1 = only K")


def _tensor_ops(a, b, before, after) -> str | None:
    if not isinstance(before, int) or not isinstance(after, int):
        return None
    return (f"tensor-core instructions per K step {before} → {after}: the CTA tile BLOCK_M × BLOCK_N × BLOCK_K "
            "is split into fixed MMA shapes, issued per warp (mma.sync m16n8k16) or per warpgroup of 4 warps "
            "(wgmma m64nNk16): count = tile / (shape × warps or warpgroups)")


def _warp_specialized(a, b, before, after) -> str:
    on = str(after).startswith("yes")
    if on == str(before).startswith("yes"):
        return f"warp specialization {before} → {after}"
    if on:
        return (f"warp specialization {before} → {after}: the K loop is now split across partitions — a producer "
                "warp issues the TMA loads, another issues the MMAs, the default warps run the epilogue — and "
                "they hand tiles over through barrier rings (`producer → consumer channel depth`) instead of "
                "every warp loading, waiting at bar.sync and computing in turn; the workers give registers "
                "back with setmaxnreg so the default warps can hold the accumulator")
    return (f"warp specialization {before} → {after}: every warp now runs the whole loop (load, wait, MMA) "
            "in turn; the pipelining is the software pipeliner's alone")


def _channel(a, b, before, after) -> str:
    return (f"channel depth {format_value(before) if before is not None else 'n/a'} → "
            f"{format_value(after) if after is not None else 'n/a'}: slots in the ring between the load "
            "partition and the MMA partition, i.e. how many K steps the producer may run ahead (it follows "
            "the kernel's num_stages option)")


# An explainer returns None where its reading does not apply (explain_change then says what changed).
EXPLAINERS: dict[str, Callable[..., str | None]] = {
    "shared_memory": _shared,
    "pipeline_depth": _depth,
    "num_stages": _num_stages,
    "loop_wait_group": _wait,
    "group_size_m": _group,
    "address_modulo": _modulo,
    "load_mask_terms": _masks,
    "loop_tensor_core_ops": _tensor_ops,
    "warp_specialized": _warp_specialized,
    "ws_channel_depth": _channel,
}


def explain_change(key: str, a, b, before: Any, after: Any, default: str) -> str:
    explainer = EXPLAINERS.get(key)
    text = explainer(a, b, before, after) if explainer is not None else None
    if text is not None:
        return text
    return f"{format_value(before) if before is not None else 'n/a'} → " \
           f"{format_value(after) if after is not None else 'n/a'}: {default}"

"""What one changed fact of a snapshot entry says to a reviewer: the change in the user's units (bytes, registers
per thread, percent and what limits it), its cause where the compiled code shows one, and the fix.

The snapshot keeps facts, not artifacts; what a cause needs that the facts lack (the dot's operand types and its
input precision, read from the TTIR) comes with the entry computed now as `evidence` (entries.compute), never
written to the snapshot. Where neither side says why, the change is said plainly, with its unit.
"""

from __future__ import annotations

from typing import Any

from ttinspect.facts.model import format_value

TITLES = {"spills": "spills", "pipeline_depth": "pipeline depth", "tensor_core_path": "tensor-core path",
          "occupancy": "occupancy", "shared_memory": "shared memory", "fits": "fits the shared memory",
          "registers": "registers", "blocks_per_sm": "CTAs per SM", "occupancy_limit": "occupancy limited by",
          "loop_depths": "pipeline depth per loop", "local_bytes": "local memory", "num_warps": "num_warps",
          "num_stages": "num_stages", "loop_tensor_core_ops": "tensor-core instructions per K step",
          "block_sizes": "block sizes", "shared_buffers": "shared-memory buffers", "tma_copies": "TMA copies",
          "warp_specialized": "warp specialization"}
# Operand types no tensor-core instruction takes with IEEE products: the dot runs on the FMA units.
_WIDE = ("f32", "f64")


def is_amd(target: str) -> bool:
    return target.startswith("gfx")


def amount(fact: str, value: Any, target: str) -> str:
    """A fact's value in the unit a reader counts it in: `520 B per thread`, `96 per thread`, `64 KiB`."""
    if value is None:
        return "unknown"
    if isinstance(value, bool) or not isinstance(value, int):
        return format_value(_frozen(value))
    if fact == "spills":  # NVIDIA: n_spills = (stack + local) / 4, i.e. 4-byte words; AMD: spilled VGPRs
        return f"{value} VGPRs" if is_amd(target) else f"{value * 4} B per thread"
    if fact in ("shared_memory", "local_bytes"):
        return f"{value} B"
    if fact == "registers":
        return f"{value} per thread"
    return str(value)


def change(fact: str, was: Any, now: Any, target: str) -> str:
    """`0 → 520 B per thread`: both sides in the fact's unit, said once."""
    old, new = amount(fact, was, target), amount(fact, now, target)
    unit = new.partition(" ")[2]
    if unit and old.endswith(" " + unit) and "(" not in unit:
        old = old[: -len(unit) - 1]
    return f"{old} → {new}"


def message(fact: str, was: Any, now: Any, target: str, after: dict[str, Any]) -> str:
    """One line: `spills: 0 → 520 B per thread on sm_80`; occupancy with what limits it now."""
    text = f"{TITLES.get(fact, fact)}: {change(fact, was, now, target)}"
    if fact == "occupancy" and after.get("occupancy_limit"):
        text += f" (limited by {after['occupancy_limit']})"
    return f"{text} on {target}"


def detail(fact: str, before: dict[str, Any], after: dict[str, Any], was: Any, now: Any, target: str,
           evidence: dict[str, Any], fallback: str) -> str:
    """Why it changed, where the facts or the compiled code say so; `fallback` (diff's explanation) else."""
    if fact == "tensor_core_path":
        cause = tensor_core_cause(now, evidence)
        if cause:
            return cause
    if fact == "occupancy":
        return _occupancy(before, after, was, now)
    if fact == "spills":
        return _spills(before, after, was, now, target)
    if fact == "loop_depths":
        return (f"the pipeline depth of each main loop, in program order: {format_value(_frozen(was))} → "
                f"{format_value(_frozen(now))}")
    return fallback


def tensor_core_cause(now: Any, evidence: dict[str, Any]) -> str | None:
    """The cause the TTIR shows for a dot that runs on no tensor core: its operands' type and precision."""
    dots = evidence.get("dots") or []
    if now != "none" or not dots:
        return None
    wide = [d for d in dots if d.get("a") in _WIDE and d.get("b") in _WIDE and d.get("precision") == "ieee"]
    if wide:
        dot = wide[0]
        where = f" (ttir:{dot['ttir_line']})" if dot.get("ttir_line") else ""
        return (f"the dot{where} now multiplies {dot['a']} × {dot['b']} operands with input_precision=\"ieee\": no "
                "tensor-core instruction computes IEEE fp32 products, so the dot runs on the FMA units. Fix: keep "
                "the operands fp16/bf16 (drop the `.to(tl.float32)` before tl.dot), or allow input_precision="
                "\"tf32\"")
    wide = [d for d in dots if d.get("a") in _WIDE or d.get("b") in _WIDE]
    if wide:
        dot = wide[0]
        return (f"the dot now takes {dot['a']} × {dot['b']} operands (input precision "
                f"{dot.get('precision') or 'default'}): fp16/bf16 (or tf32) operands are what the tensor cores take")
    return None


def _occupancy(before: dict, after: dict, was: Any, now: Any) -> str:
    limit_was, limit_now = before.get("occupancy_limit"), after.get("occupancy_limit")
    text = f"occupancy {format_value(was)} → {format_value(now)}"
    if after.get("blocks_per_sm") is not None and before.get("blocks_per_sm") != after.get("blocks_per_sm"):
        text += f": {before.get('blocks_per_sm')} → {after.get('blocks_per_sm')} CTAs fit on an SM at once"
    if limit_now:
        text += f"; limited by {limit_now}" + (f" (was {limit_was})" if limit_was and limit_was != limit_now else "")
        regs = (before.get("registers"), after.get("registers"))
        if "registers" in str(limit_now) and regs[1] is not None:
            text += f"; registers {regs[0]} → {regs[1]} per thread" if regs[0] != regs[1] else \
                f"; {regs[1]} registers per thread"
        shared = (before.get("shared_memory"), after.get("shared_memory"))
        if "shared" in str(limit_now) and shared[1] is not None:
            text += f"; shared memory {shared[0]} → {shared[1]} B per CTA" if shared[0] != shared[1] else \
                f"; {shared[1]} B of shared memory per CTA"
    return text


def _spills(before: dict, after: dict, was: Any, now: Any, target: str) -> str:
    regs = after.get("registers")
    text = (f"spills {change('spills', was, now, target)}: "
            "values that do not fit the registers go to local memory, a round trip to memory per use")
    if regs is not None:
        text += f" (registers {before.get('registers')} → {regs} per thread)"
    return text


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _frozen(v)) for k, v in value.items())
    return value

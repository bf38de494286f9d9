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


def message(fact: str, was: Any, now: Any, target: str, after: dict[str, Any],
            evidence: dict[str, Any] | None = None) -> str:
    """One line: `spills: local memory 0 → 520 B per thread (ptxas: 640 B stored, 512 B loaded) on sm_80`;
    occupancy with what limits it now."""
    if fact == "spills" and not is_amd(target):
        return f"spills: local memory {change(fact, was, now, target)}{_traffic(evidence)} on {target}"
    text = f"{TITLES.get(fact, fact)}: {change(fact, was, now, target)}"
    if fact == "occupancy" and after.get("occupancy_limit"):
        text += f" (limited by {after['occupancy_limit']})"
    return f"{text} on {target}"


def _traffic(evidence: dict[str, Any] | None) -> str:
    """ptxas's spill stores and loads per thread, as TTI003 counts them: the snapshot's `spills` is the stack frame
    the spilled values live in (Triton's n_spills × 4), a different number that a reader would otherwise see
    disagree with TTI003's."""
    traffic = (evidence or {}).get("spill_bytes") or {}
    stores, loads = traffic.get("spill_store_bytes"), traffic.get("spill_load_bytes")
    if not isinstance(stores, int) or not isinstance(loads, int) or not (stores or loads):
        return ""
    return f" (ptxas: {stores} B stored, {loads} B loaded)"


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
        return (f"the dot{_at(dot)} now multiplies {dot['a']} × {dot['b']} operands with input_precision=\"ieee\": no "
                "tensor-core instruction computes IEEE fp32 products, so the dot runs on the FMA units")
    wide = [d for d in dots if d.get("a") in _WIDE or d.get("b") in _WIDE]
    if wide:
        dot = wide[0]
        return (f"the dot{_at(dot)} now takes {dot['a']} × {dot['b']} operands (input precision "
                f"{dot.get('precision') or 'not said'}): fp16/bf16 (or tf32) operands are what the tensor cores take")
    return None


def _at(dot: dict[str, Any]) -> str:
    where = [f"line {dot['python_line']}"] if dot.get("python_line") else []
    where += [f"ttir:{dot['ttir_line']}"] if dot.get("ttir_line") else []
    return f" ({', '.join(where)})" if where else ""


def cause_fix(fact: str, after: dict[str, Any], evidence: dict[str, Any], findings: list[dict[str, Any]]
              ) -> str | None:
    """The fix for this change's own cause, where its cause is known (None: the guard's general advice)."""
    if fact == "tensor_core_path" and tensor_core_cause(after.get(fact), evidence):
        dots = evidence.get("dots") or []
        if any(d.get("precision") == "ieee" for d in dots):
            return ("keep the dot's operands fp16/bf16 (drop the `.to(tl.float32)` before tl.dot), or let fp32 "
                    "operands use the tensor cores with input_precision=\"tf32\" (or \"tf32x3\" for more accuracy)")
        return "give tl.dot fp16/bf16 operands (cast them before the dot), or fp32 ones with input_precision=\"tf32\""
    own = {f.get("id"): f.get("fix") for f in findings if f.get("fix")}
    if fact == "spills" and own.get("TTI003"):  # check's fix has this kernel's numbers: the tile, the warps
        return own["TTI003"]
    if fact == "occupancy":
        limit = str(after.get("occupancy_limit") or "")
        if own.get("TTI004"):
            return own["TTI004"]
        if "registers" in limit:
            return ("fewer registers per thread: fewer values live at once (a smaller tile per warp, more warps), "
                    "or cap them with maxnreg — `ttinspect check` TTI004 gives the number")
        if "shared" in limit:
            return "less shared memory per CTA: lower num_stages or the tile along K (`ttinspect check` TTI006)"
        if "warps" in limit:
            return "fewer warps per CTA (num_warps), so that more CTAs fit on an SM"
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
            "values that do not fit the registers go to local memory, a round trip to memory per use"
            + ("; the figure is the thread's stack frame that holds them (Triton's n_spills × 4 B), the bytes moved "
               "per thread are ptxas's spill stores and loads (TTI003's figures)" if not is_amd(target) else ""))
    if regs is not None:
        text += f" (registers {before.get('registers')} → {regs} per thread)"
    return text


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _frozen(v)) for k, v in value.items())
    return value

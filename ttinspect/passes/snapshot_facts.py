"""Facts about one snapshot of the module, read from its MLIR text: what a pass may make appear.

Pure functions, linear in the text (whole-text regular expressions and one count of op names): a history
has ~80 snapshots. Values are JSON data (int, list, dict, or None: not present in this snapshot).
Layouts are read both as aliases (`#mma = #ttg.nvidia_mma<{versionMajor = 3, ...}>`) and inline (the
pipeliner's own step dumps print them inline).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping

from ttinspect.facts.model import Counts, Fact
from ttinspect.dialects.mlir import is_dot

# One op per line: `%a = tt.load ...`, `%0:3 = scf.for ...`, `"tt.reduce"(...)`, `tt.store ...`.
# An op name has a dialect prefix; `module` is the one builtin op Triton prints without it.
_OP = re.compile(r'^[ \t]*(?:%[^=\n]*?=[ \t]*)?(?:"([\w$]+\.[\w$.]+)"|([A-Za-z_][\w$]*\.[\w$.]*|module)\b)', re.M)
_MMA_VERSION = re.compile(r"nvidia_mma<\{versionMajor = (\d+)")
# `#mma = #ttg.nvidia_mma<{versionMajor = 3, ...}>`: an alias definition, not a use.
_MMA_ALIAS = re.compile(r"^(#[\w$.-]+) = #ttg\.nvidia_mma<\{versionMajor = (\d+)", re.M)
_LATENCY = re.compile(r"tt\.latency = (\d+)")
# An mbarrier allocation: i64 words, one per barrier (`!ttg.memdesc<2x1xi64, ...>`, `<1xi64>`).
_BARRIER_ALLOC = re.compile(r"^(?:\d+x)*1xi64$")
_MAX_STAGE = re.compile(r"tt\.scheduled_max_stage = (\d+)")
_ASYNC_WAIT = re.compile(r"ttg\.async_wait\b[^\n]*?\{num = (\d+)")
_LOCAL_ALLOC = re.compile(r"ttg\.local_alloc\b[^\n]*")
_MEMDESC = re.compile(r"!ttg\.memdesc<((?:\d+x)+[a-z]+\d*)")
_TMA_OPS = frozenset({"tt.make_tensor_descriptor", "tt.descriptor_load", "tt.descriptor_store",
                      "tt.descriptor_gather", "tt.descriptor_scatter", "ttng.tensormap_create",
                      "ttng.reinterpret_tensor_descriptor"})


@dataclass(frozen=True)
class FactSpec:
    key: str
    title: str
    explanation: str


FACTS: tuple[FactSpec, ...] = (
    FactSpec("loads", "tt.load", "global loads still in Triton form; the pipeliner turns the loop's loads into "
             "asynchronous copies (or TMA), and the LLVM lowering removes the rest"),
    FactSpec("stores", "tt.store", "global stores still in Triton form"),
    FactSpec("dots", "dot ops", "matrix products by op: tt.dot until accelerate-matmul picks the tensor-core "
             "form (ttng.warp_group_dot on Hopper = wgmma, ttng.tc_gen5_mma on Blackwell = tcgen05)"),
    FactSpec("mma_version", "MMA layout version", "versionMajor of the #ttg.nvidia_mma accumulator layout "
             "accelerate-matmul assigns: 2 = mma.sync (Ampere/Ada), 3 = wgmma (Hopper)"),
    FactSpec("scf_for", "scf.for loops", "structured loops; the pipeliner adds none, convert-scf-to-cf turns "
             "them into branches"),
    FactSpec("latency_ops", "ops with tt.latency", "how many ops assign-latencies marked to run ahead of their "
             "use (the loads to pipeline, async MMAs); `latencies` has their values"),
    FactSpec("latencies", "tt.latency values", "the tt.latency of each marked op, sorted: how many iterations "
             "ahead of its use the op is issued (num_stages - 1 for a pipelined load)"),
    FactSpec("scheduled_max_stage", "loop schedule: last stage", "tt.scheduled_max_stage of the loop "
             "schedule-loops built (0-based: num_stages - 1 when every load is pipelined)"),
    FactSpec("loop_stage_ops", "ops with loop.stage", "ops schedule-loops assigned a pipeline stage to; the "
             "pipeliner consumes the attributes when it expands the loop"),
    FactSpec("shared_buffers", "shared-memory buffers (ttg.local_alloc)", "memdesc shapes of the shared "
             "data allocations; a leading extra dimension is the number of buffers (multi-buffering by the "
             "pipeliner); mbarrier allocations (Nx1xi64) are counted by `barriers`, not here"),
    FactSpec("async_copies", "ttg.async_copy_global_to_local", "asynchronous global->shared copies "
             "(cp.async) the pipeliner created, prologue and loop"),
    FactSpec("async_waits", "ttg.async_wait num", "the `num` of each ttg.async_wait: how many copy groups may "
             "stay in flight (cp.async.wait_group N)"),
    FactSpec("tma_ops", "TMA / descriptor ops", "tensor-descriptor ops and the TMA copies they become "
             "(ttng.async_tma_copy_global_to_local = cp.async.bulk.tensor)"),
    FactSpec("barriers", "ttng.init_barrier", "mbarriers initialized (TMA and wgmma pipelines wait on them)"),
    FactSpec("warp_specialize", "ttg.warp_specialize", "warp-specialized regions (producer / consumer warps)"),
)
FACT_KEYS = tuple(spec.key for spec in FACTS)
_SPECS = {spec.key: spec for spec in FACTS}


def op_counts(text: str) -> Counter:
    return Counter(m[1] or m[2] for m in _OP.finditer(text))


def snapshot_facts(text: str, ops: Counter | None = None) -> dict[str, Any]:
    """Every fact of FACTS for one snapshot's text; `ops`: its op_counts, when already counted."""
    ops = op_counts(text) if ops is None else ops
    versions = _mma_versions(text)
    stages = [int(v) for v in _MAX_STAGE.findall(text)]
    buffers = sorted(found[-1] for line in _LOCAL_ALLOC.findall(text) for found in [_MEMDESC.findall(line)]
                     if found and not _BARRIER_ALLOC.match(found[-1]))
    return {
        "loads": ops.get("tt.load", 0),
        "stores": ops.get("tt.store", 0),
        "dots": {name: n for name, n in sorted(ops.items()) if name != "module" and is_dot(name)},
        "mma_version": versions or None,
        "scf_for": ops.get("scf.for", 0),
        "latency_ops": text.count("tt.latency = "),
        "latencies": sorted(int(v) for v in _LATENCY.findall(text)),
        "scheduled_max_stage": max(stages) if stages else None,
        "loop_stage_ops": text.count("loop.stage = "),
        "shared_buffers": buffers,
        "async_copies": ops.get("ttg.async_copy_global_to_local", 0),
        "async_waits": sorted(int(v) for v in _ASYNC_WAIT.findall(text)),
        "tma_ops": {name: n for name, n in sorted(ops.items()) if "tma" in name or name in _TMA_OPS},
        "barriers": ops.get("ttng.init_barrier", 0),
        "warp_specialize": ops.get("ttg.warp_specialize", 0),
    }


def _mma_versions(text: str) -> list[int] | None:
    """versionMajor of every #ttg.nvidia_mma layout a tensor of the IR is in: inline, or through an alias
    used by an op other than `builtin.unrealized_conversion_cast` (what the LLVM lowering leaves until
    canonicalize-llvm-ir drops it: the layout is gone from the kernel once the lowering ran)."""
    versions = {int(v) for v in _MMA_VERSION.findall(_MMA_ALIAS.sub("", text))}
    aliases = {m[1]: int(m[2]) for m in _MMA_ALIAS.finditer(text)}
    if aliases:
        names = "|".join(re.escape(a) for a in sorted(aliases, key=len, reverse=True))
        used = re.compile(rf"^(?![ \t]*#)(?![^\n]*unrealized_conversion_cast)[^\n]*?({names})(?![\w$.-])", re.M)
        versions.update(aliases[m] for m in used.findall(text))
    return sorted(versions) or None


_ABSENT = {"mma_version": "no #ttg.nvidia_mma layout in this snapshot (before accelerate-matmul, no dot, "
                          "or after the LLVM lowering)",
           "scheduled_max_stage": "no loop carries tt.scheduled_max_stage (before schedule-loops, or after the "
                                  "pipeliner consumed it)"}


def as_fact(key: str, value: Any) -> Fact:
    """One snapshot value as the project's Fact (mappings as Counts, lists as tuples)."""
    spec = _SPECS[key]
    if value is None:
        return Fact(key, spec.title, "ir", None, spec.explanation, "pass snapshot", _ABSENT.get(key, "absent"))
    return Fact(key, spec.title, "ir", _frozen(value), spec.explanation, "pass snapshot")


def as_facts(values: Mapping[str, Any]) -> dict[str, Fact]:
    return {key: as_fact(key, values.get(key)) for key in FACT_KEYS}


def title(key: str) -> str:
    return _SPECS[key].title


def explanation(key: str) -> str:
    return _SPECS[key].explanation


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return Counts(sorted(value.items()))
    if isinstance(value, list):
        return tuple(value)
    return value

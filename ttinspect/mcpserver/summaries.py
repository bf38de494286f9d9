"""The short text beside each tool's JSON: what an agent (or the person reading its transcript) needs first —
the headline facts, the findings with their fixes, the changed facts — in a few lines."""

from __future__ import annotations

from typing import Any, Callable, Mapping

HEADLINE = ("pipeline_depth", "num_stages", "tensor_core_path", "loop_tensor_core_ops", "shared_memory", "registers",
            "spills", "occupancy", "occupancy_limit")
MOST_CHANGES = 10


def _value(fact: Any) -> Any:
    if isinstance(fact, Mapping):
        return fact.get("value") if fact.get("unknown") is None else f"unknown ({fact.get('unknown')})"
    return fact


def _names(items: list[Mapping[str, Any]], key: str = "name", most: int = 12) -> str:
    names = [str(item.get(key)) for item in items[:most]]
    return ", ".join(names) + (f", ... ({len(items)} in all)" if len(items) > most else "")


def list_kernels(data: Mapping[str, Any]) -> str:
    if "variants" in data:
        return f"{len(data['variants'])} shipped variants: {_names(data['variants'])}"
    if "compiles" in data:
        return list_capture(data)
    kernels = [k for k in data.get("kernels", []) if not k.get("helper")]
    helpers = [k for k in data.get("kernels", []) if k.get("helper")]
    text = f"{data.get('ref')}: kernels {_names(kernels) or '(none)'}"
    if helpers:
        text += f"; device helpers {_names(helpers)}"
    if data.get("examples"):
        text += f"; examples {_names(data['examples'])}"
    return text


def list_capture(data: Mapping[str, Any]) -> str:
    rows = data.get("compiles", [])
    return (f"{data.get('capture')}: {len(rows)} compile(s); "
            + "; ".join(f"{row.get('ref')} on {row.get('target')} ({row.get('launches')} launches)" for row in rows[:8])
            + (" ..." if len(rows) > 8 else ""))


def report(data: Mapping[str, Any]) -> str:
    facts = data.get("facts", {})
    shown = [f"{key}={_value(facts[key])}" for key in HEADLINE if key in facts]
    device = f", device {data['device']}" if data.get("device") else ""
    return (f"{data.get('label')} on {data.get('target')} (Triton {data.get('triton_version')}{device}): "
            + ", ".join(shown) + f"; {len(facts)} facts, {len(data.get('loops', []))} loop(s)")


def dump(data: Mapping[str, Any]) -> str:
    shown = len(data.get("text", "").split("\n")) if data.get("first_line") is not None else 0
    where = (f"stage lines {data['first_line']}-{data['last_line']}" if data.get("first_line") is not None
             else "no lines")
    more = f"; truncated: ask again with first_line={data['next_line']}" if data.get("truncated") else ""
    note = f" ({data['note']})" if data.get("note") else ""
    return (f"{data.get('stage')} of {data.get('label')} on {data.get('target')}, {data.get('selection')}: "
            f"{where}, {shown} of {data.get('total_lines')} line(s) selected{note}{more}")


def export_stages(data: Mapping[str, Any]) -> str:
    return (f"wrote {len(data.get('written', []))} file(s) of {data.get('label')} on {data.get('target')} "
            f"to {data.get('folder')}")


def diff(data: Mapping[str, Any]) -> str:
    a, b = data.get("a", {}), data.get("b", {})
    changes = data.get("changes", [])
    head = (f"{a.get('label')}@{a.get('target')} -> {b.get('label')}@{b.get('target')}: "
            f"{len(changes)} fact(s) changed")
    lines = [head] + [f"  {c.get('key')}: {c.get('a')} -> {c.get('b')}" for c in changes[:MOST_CHANGES]]
    if len(changes) > MOST_CHANGES:
        lines.append(f"  ... {len(changes) - MOST_CHANGES} more in `changes`")
    passes = data.get("passes")
    if passes:
        first = passes.get("first_fact_difference") or passes.get("first_text_difference")
        lines.append("first pass where they part: " + (first["a"]["label"] if first else "none (same history)"))
    return "\n".join(lines)


def _finding(finding: Mapping[str, Any]) -> str:
    return (f"  {finding['severity'].upper()} {finding['id']} {finding['slug']}: {finding['title']}\n"
            f"    fix: {finding['fix']}")


def check(data: Mapping[str, Any]) -> str:
    counts = data.get("counts", {})
    total = ", ".join(f"{counts.get(level, 0)} {level}" for level in ("error", "warning", "info"))
    if "compiles" in data:
        return (f"{data.get('capture')}: {len(data['compiles'])} compile(s) checked ({data.get('unchecked', 0)} could "
                f"not be): {total}")
    findings = data.get("findings", [])
    lines = [f"{data.get('label')} on {data.get('target')}: {total}" + ("" if findings else " (no findings shown)")]
    return "\n".join(lines + [_finding(f) for f in findings])


def sweep(data: Mapping[str, Any]) -> str:
    rows = data.get("rows", [])
    text = (f"{data.get('ref')}: {data.get('points')} point(s) over {', '.join(data.get('axes', []))} "
            f"({data.get('compiled')} compiled, {data.get('warm')} cached, {data.get('failed')} failed); "
            f"{len(rows)} shown")
    for row in rows[:5]:
        facts = row.get("facts", {})
        picked = ", ".join(f"{k}={facts[k]}" for k in ("registers", "spills", "pipeline_depth", "occupancy")
                           if k in facts)
        text += f"\n  {row.get('point')} @ {row.get('arch')}: {row.get('error') or picked}"
    return text


SUMMARIES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "list_kernels": list_kernels, "list_capture": list_capture, "report": report, "dump": dump,
    "export_stages": export_stages, "diff": diff, "check": check, "sweep": sweep}

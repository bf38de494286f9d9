"""The pass history on a terminal: the timeline table, one pass's diff, and where two histories part."""

from __future__ import annotations

from typing import Any, Mapping

from ttinspect.facts.model import format_value
from ttinspect.files.terminal_text import shown_block
from ttinspect.render import fit, term

_MAX_OPS = 6  # op kinds shown per row; the LLVM lowering adds dozens


def ops_text(added: Mapping[str, int], removed: Mapping[str, int], limit: int = _MAX_OPS) -> str:
    items = [(f"+{name}×{n}", n) for name, n in added.items()] + [(f"-{name}×{n}", n) for name, n in removed.items()]
    items.sort(key=lambda item: -item[1])
    shown = " ".join(text for text, _ in items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def value_text(value: Any) -> str:
    if value is None:
        return "absent"
    if isinstance(value, dict):
        return ", ".join(f"{k}×{v}" for k, v in value.items()) or "none"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "none"
    return format_value(value)


def facts_text(changes) -> str:
    return "; ".join(f"{c.key} {value_text(c.before)} → {value_text(c.after)}" for c in changes)


def timeline_table(header: str, history, *, show_all: bool = False, loop_counts: Mapping[int, Any] | None = None,
                   ) -> None:
    from rich.text import Text

    # the pass history's parsers load only when it is asked for
    from ttinspect.passes.snapshot_facts import explanation, title

    console = term.console()
    width = console.width
    for piece in fit.wrap(header, width, indent="# ", subsequent="#   "):  # the header comment, to the width
        console.print(Text(piece, style="dim"), no_wrap=True, crop=False)
    loop = loop_counts is not None
    # Below 120 columns the op tallies leave the facts no room: the facts stay, the ops go (--show PASS has
    # them, and a line under the table says so); below 160 fewer op kinds per row.
    with_ops = width >= 120
    limit = _MAX_OPS if width >= 160 else 3
    # --loop: the lines are the main loop's; ops and facts stay the whole module's, and say so
    ops_head = "ops (whole module)" if loop else "ops"
    heads = ["#", "pass", "stage", "lines (main loop)" if loop else "lines"] + ([ops_head] if with_ops else []) + [
        "facts that changed (whole module)" if loop else "facts that changed"]
    rows: list[tuple[list[Text], str]] = []
    used: list[str] = []
    for row in history.passes if show_all else history.rows:
        if loop_counts is not None:
            counts = loop_counts.get(row.index)
            lines = "–" if counts is None else f"+{counts[0]} -{counts[1]}"
        else:
            lines = "?" if row.lines_added is None else f"+{row.lines_added} -{row.lines_removed}"
        name = Text(row.label)
        if row.nested:
            name.append(f" + {row.folded}", style="dim")
        ops = [Text(ops_text(row.ops_added, row.ops_removed, limit))] if with_ops else []
        facts = Text(facts_text(row.changed_facts), style="bold") if row.changed_facts else Text("")
        rows.append(([Text(str(row.index)), name, Text(row.stage), Text(lines), *ops, facts],
                     "dim" if row.changed is False else ""))
        for step in row.steps:
            ops = [Text(ops_text(step.ops_added, step.ops_removed, limit))] if with_ops else []
            rows.append(([Text(""), Text(f"  ↳ {step.name}"), Text(""), Text(""), *ops,
                          Text(facts_text(step.changed_facts))], "dim"))
        used += [c.key for c in row.changed_facts if c.key not in used]
    # rich imports: only when a table is printed
    from ttinspect.render.fitted_table import fitted_table

    console.print(fitted_table(heads, rows, width, flexible={1, len(heads) - 1} | ({4} if with_ops else set()),
                               right={0, 3}))
    if not with_ops:
        console.print(Text("\n".join(fit.wrap(f"left out at {width} columns: ops, the ops each pass added and "
                                               "removed (--width 120, --json; --show PASS)", width)), style="dim"))
    notes = []
    if not show_all:
        notes.append((f"{history.unchanged} of {len(history.passes)} passes changed nothing (--all lists them); "
                      "--show PASS prints one pass's diff", ""))
    if any(row.nested for row in (history.passes if show_all else history.rows)):
        notes.append(("pass + other: function-scope passes that ran after it (on one function at a time); "
                      "the row's counts include theirs", "dim"))
    notes += [(f"{key} ({title(key)}): {explanation(key)}", "dim") for key in used]
    for note, style in notes:
        console.print(Text("\n".join(fit.wrap(note, width)), style=style), no_wrap=True, crop=False)


def pass_diff_text(header: str, result, *, color: bool) -> str:
    row = result.row
    options = f", {row.options}" if row.options else ""
    lines = [f"// {header}",
             f"// pass {row.index}: {row.label} ({row.name}{options}), stage {row.stage}"
             + (f", with {', '.join(row.nested)}" if row.nested else "")]
    if row.changed_facts:
        lines.append(f"// facts: {facts_text(row.changed_facts)}")
    for step in row.steps:
        lines.append(f"//   step {step.name}: {ops_text(step.ops_added, step.ops_removed) or 'no op change'}"
                     + (f"; {facts_text(step.changed_facts)}" if step.changed_facts else ""))
    if result.note:
        lines.append(f"// {result.note}")
    lines.append(f"// +{result.lines_added} -{result.lines_removed} lines (renumbered: SSA names reduced, "
                 "locations dropped)")
    if result.unified:
        body = result.unified
    elif result.note.startswith(("no main loop", "the module this pass left")):
        body = "(nothing to diff)"  # the note says why
    else:
        body = "(no change in the main loop)" if result.loop else "(no change)"
    body = shown_block(body)  # the IR's own text (names, strings, locations): control characters quoted
    if color:
        colors = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}
        body = "\n".join(colors.get(line[:1], "") + line + ("\x1b[0m" if line[:1] in colors else "")
                         for line in body.splitlines())
    return shown_block("\n".join(lines)) + "\n" + body + "\n"


def divergence_text(result) -> str:
    # the pass history's parsers load only when it is asked for
    from ttinspect.passes.snapshot_facts import explanation, title

    a, b = result.a, result.b
    name_a, name_b = f"{a.label}@{a.target}", f"{b.label}@{b.target}"
    if result.mode == "per pass":  # two Tritons: name each side by its release
        name_a, name_b = f"{name_a} (Triton {a.triton})", f"{name_b} (Triton {b.triton})"
    out = [f"pass histories: {name_a} vs {name_b}"]
    if result.mode == "per pass":
        out.append("  two Tritons order their passes differently: each pass's own fact changes are compared "
                   "(same-named passes, by occurrence)")
    if result.input_same_text:
        out.append("  same input (the first snapshots are equal once renumbered)")
    else:
        differing = ", ".join(title(k) for k in result.input_differences) or "no snapshot fact"
        out.append(f"  the divergence is at the input: the first snapshots differ (in {differing})")
    if result.first_text:
        ra, rb = result.first_text
        options = f" (options: {ra.options or '-'} | {rb.options or '-'})" if ra.options != rb.options else ""
        out.append(f"  first output text difference: pass {ra.index} {ra.label}{options}")
    if result.first_fact is None:
        out.append("  no pass makes a snapshot fact differ" + (" further" if result.input_differences else ""))
    else:
        ra, rb = result.first_fact
        where = f"pass {ra.index}" if ra.index == rb.index else f"pass {ra.index} | {rb.index}"
        equal = " (facts equal before it; the input's differences are above)" if result.input_differences else ""
        if result.mode == "per pass":
            equal = " (what this pass changed differs; values after it, a | b)"
        out.append(f"  first fact difference: {where} {ra.label}{equal}")
        for key, (va, vb) in result.differences.items():
            out.append(f"    {key} ({title(key)}): {value_text(va)} | {value_text(vb)}  — {explanation(key)}")
    if result.only_a or result.only_b:
        out.append(f"  passes only in {name_a}: {', '.join(result.only_a) or 'none'}; only in {name_b}: "
                   f"{', '.join(result.only_b) or 'none'}")
    if result.reordered:
        out.append(f"  passes that moved (relative to the others): {', '.join(result.reordered)}")

    width = term.width()
    wrapped = []
    for line in out:  # to the width like every table; a long list of passes continues indented
        wrapped += fit.wrap(line, width, subsequent="      ") or [""]
    return "\n".join(wrapped)

"""The page's tables, as HTML fragments: the header (kernel, target, Triton, config, hashes), the facts
(side by side for two kernels, changed rows marked, each with its explanation), the findings with their
evidence, registers and occupancy, the main-loop diffs and the pass timelines.

Every string that comes from a kernel or its files goes through `esc`; nothing here needs JavaScript.
"""

from __future__ import annotations

import html
import posixpath
from typing import Any, Sequence

from ttinspect.compare.facts_diff import diff_reports, loop_text_diff
from ttinspect.dialects.loop_slice import slice_text
from ttinspect.html.data import KernelData
from ttinspect.kernel.variants import config_value_text
from ttinspect.passes.align import diverge, keyed_by_pass
from ttinspect.render.names import one_name, side_names as pair_names
from ttinspect.render.passes import divergence_text

RESOURCES_GROUP = "registers & occupancy"
LONG_NAME = 48  # a label longer than this is named by less on the page; the header's config row lists it all


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _naming(kernels: Sequence[KernelData]) -> tuple[list[str], str]:
    """(each kernel's name on the page, the title's subject). A name is the label, with the target where
    the two differ; a label longer than LONG_NAME, or two that repeat the same settings, give way to what
    tells the kernels apart (render/names.py: `file.py:kern@sm_90: BLOCK=64 vs BLOCK=128`)."""
    targets = sorted({k.report.target for k in kernels})
    where = f" ({targets[0]})" if len(targets) == 1 else ""
    if len(kernels) == 1:
        name = one_name(kernels[0].report, LONG_NAME)
        return [name], name + where
    plain = [k.label if len(targets) == 1 else f"{k.label}@{k.report.target}" for k in kernels]
    names = pair_names(kernels[0].report, kernels[1].report)
    if names.short and (names.shared or max(len(n) for n in plain) > LONG_NAME):
        return list(names.sides), names.title() + ("" if names.common else where)
    return plain, " vs ".join(plain) + where


def side_names(kernels: Sequence[KernelData]) -> list[str]:
    """How the page names each kernel (see `_naming`)."""
    return _naming(kernels)[0]


def title(kernels: Sequence[KernelData]) -> str:
    return f"ttinspect: {_naming(kernels)[1]}"


def _config_cell(config) -> str:
    """A config as HTML: one `KEY=value` item after another, the line broken between items."""
    items = [f"<code>{esc(k)}={esc(config_value_text(v))}</code>" for k, v in config.items()]
    return " ".join(items) or "(none)"


def header(kernels: Sequence[KernelData]) -> str:
    names = side_names(kernels)
    rows = [
        ("kernel", [esc(k.report.kernel) for k in kernels]),
        ("target", [esc(k.build.target.header()) for k in kernels]),
        ("Triton", [esc(k.report.triton_version) for k in kernels]),
        ("config", [_config_cell(k.report.config) for k in kernels]),
        ("source file", [esc(k.source_file or "(unknown)") for k in kernels]),
    ]
    if any(k.build.note for k in kernels):
        rows.append(("note", [esc(k.build.note or "") for k in kernels]))
    if any(k.report.device_line for k in kernels):  # the GPU that answered the code, the limits it has
        rows.append(("device", [esc(k.report.device_line or "(none asked)") for k in kernels]))
    rows.append(("hashes (sha256, short)", [esc(" · ".join(f"{what} {digest}" for what, digest in k.hashes))
                                           for k in kernels]))
    head = "".join(f"<th>{esc(n)}</th>" for n in names)
    body = "".join(f"<tr><th>{esc(name)}</th>{''.join(f'<td>{v}</td>' for v in values)}</tr>"
                   for name, values in rows)
    return (f'<header><h1>{esc(title(kernels))}</h1>'
            f'<table class="meta"><thead><tr><th></th>{head}</tr></thead><tbody>{body}</tbody></table></header>')


def _value(fact) -> str:
    css = "unk" if fact.value is None else "v"
    return f'<td class="{css}">{esc(fact.display())}</td>'


def facts_one(kernel: KernelData, only_group: str | None = None) -> str:
    rows = []
    for group, facts in kernel.report.by_group():
        if only_group is not None and group != only_group:
            continue
        if only_group is None:
            rows.append(f'<tr class="group"><th colspan="3">{esc(group)}</th></tr>')
        rows += [f'<tr><td class="t">{esc(f.title)}</td>{_value(f)}<td class="x">{esc(f.explanation)}</td></tr>'
                 for f in facts]
    return ('<table class="facts"><thead><tr><th>fact</th><th>value</th><th>meaning</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def facts_two(a: KernelData, b: KernelData, only_group: str | None = None) -> tuple[str, int]:
    """The facts side by side (`compare.diff_reports`); a changed row carries its explanation."""
    result = diff_reports(a.report, b.report)
    changes = {c.key: c for c in result.changes}
    names = side_names((a, b))
    rows, group = [], None
    for fa, fb in result.rows:
        if only_group is not None and fa.group != only_group:
            continue
        if fa.group != group and only_group is None:
            group = fa.group
            rows.append(f'<tr class="group"><th colspan="4">{esc(group)}</th></tr>')
        change = changes.get(fa.key)
        css = ' class="chg"' if change else ""
        explanation = change.explanation if change else fa.explanation
        rows.append(f'<tr{css}><td class="t">{esc(fa.title)}</td>{_value(fa)}{_value(fb)}'
                    f'<td class="x">{esc(explanation)}</td></tr>')
    head = f"<th>fact</th><th>{esc(names[0])}</th><th>{esc(names[1])}</th><th>meaning / why it changed</th>"
    table = f'<table class="facts two"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    return table, len(result.changes)


def facts_section(kernels: Sequence[KernelData]) -> str:
    if len(kernels) == 1:
        return f'<section id="facts"><h2>Facts</h2>{facts_one(kernels[0])}</section>'
    table, changed = facts_two(kernels[0], kernels[1])
    # A checkbox and a CSS rule: "only changed rows" works with JavaScript off.
    return (f'<section id="facts"><h2>Facts</h2><p>{changed} of the facts differ (highlighted). '
            '<input type="checkbox" id="only-changed"><label for="only-changed">show only those</label></p>'
            f'{table}</section>')


def resources_section(kernels: Sequence[KernelData]) -> str:
    if len(kernels) == 1:
        table = facts_one(kernels[0], RESOURCES_GROUP)
    else:
        table, _ = facts_two(kernels[0], kernels[1], only_group=RESOURCES_GROUP)
    return f'<section id="resources"><h2>Registers and occupancy</h2>{table}</section>'


def findings_section(kernels: Sequence[KernelData]) -> str:
    names = side_names(kernels)
    parts = ['<section id="findings"><h2>Check findings</h2>']
    for index, (kernel, name) in enumerate(zip(kernels, names, strict=True)):
        count = len(kernel.findings)
        parts.append(f"<h3>{esc(name)}: {count} finding{'s' * (count != 1)}</h3>")
        if not count:
            parts.append('<p class="none">no findings</p>')
        parts += [_finding(index, f) for f in kernel.findings]
    parts.append("</section>")
    return "".join(parts)


def _finding(kernel_index: int, finding) -> str:
    evidence = []
    for e in finding.evidence:
        where = f"{e.stage}:{e.line}" if e.line is not None else e.stage
        if e.line is not None and e.stage in ("ttir", "glir", "ttgir", "llir", "ptx", "sass"):
            # a link into the stage pane (JavaScript); without it, the location as text
            where = (f'<span class="go" data-k="{kernel_index}" data-stage="{esc(e.stage)}" '
                     f'data-line="{int(e.line)}">{esc(where)}</span>')
        else:
            where = esc(where)
        python = f' <span class="pl">← line {int(e.python_line)}</span>' if e.python_line is not None else ""
        evidence.append(f"<li>{where} <code>{esc(e.text.strip())}</code>{python}</li>")
    severity = esc(finding.severity)
    return (f'<div class="finding sev-{severity}"><div class="ft"><span class="sev">{severity.upper()}</span> '
            f'<b>{esc(finding.id)}</b> {esc(finding.slug)}: {esc(finding.title)}</div>'
            f'<ul class="ev">{"".join(evidence)}</ul>'
            f'<p><b>why</b> {esc(finding.why)}</p><p><b>fix</b> {esc(finding.fix)}</p></div>')


def loop_diff_section(a: KernelData, b: KernelData) -> str:
    """Per stage, the two main loops as a renumbered unified diff (`compare.loop_text_diff`)."""
    names = side_names((a, b))
    parts = ['<section id="loop-diff"><h2>Main loops, diffed</h2><p>Registers, SSA names and labels renumbered '
             "in order of appearance, locations and comments dropped: only real changes show.</p>"]
    for stage in [s.stage for s in a.stages]:
        sa, sb = a.stage(stage), b.stage(stage)
        why = next((f"{name}: {reason}" for name, reason in
                    ((names[0], _no_loop(sa)), (names[1], _no_loop(sb))) if reason), None)
        if why:
            body, summary = f'<p class="none">no loop diff: {esc(why)}</p>', "no diff"
        else:
            assert sa.text is not None and sb.text is not None  # _no_loop gave a reason otherwise
            text = loop_text_diff(stage, slice_text(sa.text, sa.loop), slice_text(sb.text, sb.loop),
                                  f"{names[0]} ({stage} main loop)", f"{names[1]} ({stage} main loop)")
            lines = text.split("\n") if text else []
            added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
            removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
            summary = f"+{added} −{removed}" if text else "identical"
            body = (f'<pre class="diff">{"".join(_diff_line(line) for line in lines)}</pre>'
                    if text else '<p class="none">the main loops are identical</p>')
        is_open = " open" if stage == ("ptx" if any(s.stage == "ptx" for s in a.stages) else a.stages[0].stage) else ""
        parts.append(f'<details{is_open}><summary>{stage.upper()} <span class="n">{esc(summary)}</span></summary>'
                     f"{body}</details>")
    parts.append("</section>")
    return "".join(parts)


def _no_loop(stage_data) -> str | None:
    if stage_data.text is None:
        return stage_data.missing or "the stage is missing"
    if stage_data.loop is None:
        return stage_data.loop_error or "its main loop could not be read"
    return None if stage_data.loop_lines else stage_data.loop.reason


def _diff_line(line: str) -> str:
    css = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "")
    if line.startswith(("+++", "---")):
        css = "file"
    return f'<span class="{css}">{esc(line)}</span>' if css else f"<span>{esc(line)}</span>"


def passes_section(kernels: Sequence[KernelData]) -> str:
    """Each kernel's pass timeline (`ttinspect passes`); for two, first where they part (the summary
    `diff --passes` prints) and the two timelines aligned by pass (argument and occurrence)."""
    names = side_names(kernels)
    parts = ['<section id="passes"><h2>Compiler passes</h2><p>The passes that changed the IR, in the order they '
             "ran (`ttinspect passes`): lines added/removed, ops, and the facts each pass changed. "
             "<i>pass + other</i>: function-scope passes that ran after it, counted in its row.</p>"]
    missing = [(kernel, name) for kernel, name in zip(kernels, names, strict=True) if kernel.pass_history is None]
    for kernel, name in missing:
        parts.append(f'<p class="none">{esc(name)}: no pass timeline: {esc(kernel.pass_reason or "not asked")}</p>')
    if len(kernels) == 2 and not missing:
        parts.append(_aligned_passes(*kernels))
    else:
        for kernel, name in zip(kernels, names, strict=True):
            if kernel.pass_history is None:
                continue
            rows = "".join(_pass_row(row) for row in kernel.pass_history.rows)
            parts.append(f"<details{' open' if len(kernels) == 1 else ''}><summary>{esc(name)}: "
                         f"{len(kernel.pass_history.rows)} passes changed the IR</summary>"
                         '<table class="passes"><thead><tr><th>#</th><th>pass</th><th>stage</th><th>lines</th>'
                         f"<th>ops</th><th>facts that changed</th></tr></thead><tbody>{rows}</tbody></table></details>")
    parts.append("</section>")
    return "".join(parts)


def _pass_cells(row) -> tuple[str, str, str]:
    lines = "?" if row.lines_added is None else f"+{row.lines_added} −{row.lines_removed}"
    return lines, _ops(row.ops_added, row.ops_removed), _facts(row.changed_facts)


def _ops(added, removed) -> str:
    ops = sorted([(f"+{name}×{n}", n) for name, n in added.items()]
                 + [(f"−{name}×{n}", n) for name, n in removed.items()], key=lambda item: -item[1])
    return " ".join(text for text, _ in ops[:6]) + (f" (+{len(ops) - 6} more)" if len(ops) > 6 else "")


def _facts(changes) -> str:
    return "; ".join(f"{c.key} {_plain(c.before)} → {_plain(c.after)}" for c in changes)


def _pass_row(row) -> str:
    lines, ops, facts = _pass_cells(row)
    css = ' class="chg"' if row.changed_facts else ""
    steps = "".join(f'<tr class="step"><td></td><td>↳ {esc(step.name)}</td><td></td><td></td>'
                    f"<td>{esc(_ops(step.ops_added, step.ops_removed))}</td>"
                    f"<td>{esc(_facts(step.changed_facts))}</td></tr>"
                    for step in row.steps)
    return (f"<tr{css}><td>{int(row.index)}</td><td>{_pass_title(row)}</td><td>{esc(row.stage)}</td>"
            f"<td>{esc(lines)}</td><td>{esc(ops)}</td><td>{esc(facts)}</td></tr>{steps}")


def _pass_title(row) -> str:
    folded = f' <span class="why">+ {esc(row.folded)}</span>' if row.nested else ""
    return esc(row.label or row.argument) + folded


def aligned_keys(a, b) -> list[tuple[str, int]]:
    """The passes of both histories as (argument, occurrence), in the order they ran: a's order, with a
    pass only b ran placed after the pass b ran before it."""
    keys = list(keyed_by_pass(a))
    seen = set(keys)
    previous = None
    for key in keyed_by_pass(b):
        if key not in seen:
            keys.insert(keys.index(previous) + 1 if previous is not None else 0, key)
            seen.add(key)
        previous = key
    return keys


def _aligned_passes(a: KernelData, b: KernelData) -> str:
    names = side_names((a, b))
    ha, hb = a.pass_history, b.pass_history
    result = diverge(ha, hb)
    keyed_a, keyed_b = keyed_by_pass(ha), keyed_by_pass(hb)
    part = (result.first_fact[0].index, result.first_fact[1].index) if result.first_fact else None
    first_text = (result.first_text[0].index, result.first_text[1].index) if result.first_text else None
    rows, shown_rows = [], 0
    for key in aligned_keys(ha, hb):
        ra, rb = keyed_a.get(key), keyed_b.get(key)
        if all(r is None or r.changed is False for r in (ra, rb)):
            continue
        pair = (ra.index if ra else None, rb.index if rb else None)
        css = "part" if pair == part else ("text" if pair == first_text else "")
        marker = ('<br><b class="mark">◀ first fact difference</b>' if pair == part
                  else '<br><b class="mark">◀ first output text difference</b>' if pair == first_text else "")
        shown = ra or rb
        assert shown is not None  # keys neither side has were skipped above
        cells = []
        for row in (ra, rb):
            if row is None:
                cells.append('<td></td><td colspan="3" class="none">not run</td>')
            elif row.changed is False:
                cells.append(f'<td>{int(row.index)}</td><td colspan="3" class="none">changed nothing</td>')
            else:
                lines, ops, facts = _pass_cells(row)
                chg = ' class="chg"' if row.changed_facts else ""
                cells.append(f"<td>{int(row.index)}</td><td>{esc(lines)}</td><td>{esc(ops)}</td><td{chg}>{esc(facts)}</td>")
        titles = {_pass_title(r) for r in (ra, rb) if r is not None}
        title_html = " | ".join(sorted(titles))
        shown_rows += 1
        rows.append(f'<tr class="{css}"><td>{title_html}{marker}</td><td>{esc(shown.stage)}</td>{"".join(cells)}</tr>')
        steps_a = {s.name: s for s in (ra.steps if ra else ())}
        steps_b = {s.name: s for s in (rb.steps if rb else ())}
        for step in dict.fromkeys([*steps_a, *steps_b]):
            step_cells = []
            for found in (steps_a.get(step), steps_b.get(step)):
                if found is None:
                    step_cells.append('<td></td><td colspan="3"></td>')
                else:
                    step_cells.append(f"<td></td><td></td><td>{esc(_ops(found.ops_added, found.ops_removed))}</td>"
                                      f"<td>{esc(_facts(found.changed_facts))}</td>")
            rows.append(f'<tr class="step"><td>↳ {esc(step)}</td><td></td>{"".join(step_cells)}</tr>')
    head = ('<tr><th rowspan="2">pass</th><th rowspan="2">stage</th>'
            f'<th colspan="4">{esc(names[0])}</th><th colspan="4">{esc(names[1])}</th></tr>'
            + "<tr>" + "<th>#</th><th>lines</th><th>ops</th><th>facts that changed</th>" * 2 + "</tr>")
    return ('<h3>Where they part</h3><pre class="part-summary">' + esc(divergence_text(result)) + "</pre>"
            "<details open><summary>both timelines, aligned by pass (name and occurrence): "
            f"{shown_rows} changed the IR on either side</summary>"
            f'<table class="passes two"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table></details>')


def _plain(value: Any) -> str:
    if value is None:
        return "absent"
    if isinstance(value, dict):
        return ", ".join(f"{k}×{v}" for k, v in value.items()) or "none"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)


def file_name(path: str | None) -> str:
    return posixpath.basename((path or "").replace("\\", "/")) or "(source)"

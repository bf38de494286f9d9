"""The page: one self-contained HTML file (CSS and JavaScript inline, nothing fetched) of one kernel or of
two side by side.

Each stage pane is a `<pre>` whose N-th child element is line N of the stage text, so that the
attribution data — per stage, stage line -> Python line and back, embedded as JSON in a
`<script type="application/json">` block — needs no ids. The facts, findings and diffs are plain HTML
and read with JavaScript off; the panes then show one under the other.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Sequence

from ttinspect.html.data import KernelData, StageData
from ttinspect.html.listing import html_lines, stylesheet
from ttinspect.html.sections import (esc, facts_section, file_name, findings_section, header, loop_diff_section,
                       passes_section, resources_section, side_names, title)

STAGE_TITLES = {"ttir": "TTIR", "glir": "Gluon IR", "ttgir": "TTGIR", "llir": "LLIR", "ptx": "PTX", "sass": "SASS"}
DEFAULT_STAGE = "ptx"


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def script_json(data) -> str:
    """JSON safe inside a <script> element: no `<` at all, so neither `</script>` nor `<!--` can end or
    change it (a kernel's file paths and names go in here)."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")


def _lines(fragments: Sequence[str], classes: Sequence[str]) -> str:
    return "".join(f'<span class="{c}">{f}</span>' for f, c in zip(fragments, classes, strict=True))


def _loop_set(stage: StageData) -> set[int]:
    span = stage.loop_lines
    if span is None:
        return set()
    inside = set(range(span[0], span[1] + 1))
    for first, last in getattr(stage.loop, "gaps", ()):
        inside -= set(range(first, last + 1))
    return inside


def _default_stage(kernel: KernelData) -> str:
    shown = [s.stage for s in kernel.stages]
    return DEFAULT_STAGE if DEFAULT_STAGE in shown else shown[0]


def _stage_pane(stage: StageData, default: str = DEFAULT_STAGE) -> str:
    name = STAGE_TITLES[stage.stage]
    active = " active" if stage.stage == default else ""
    if stage.text is None:
        return (f'<div class="pane{active}" data-stage="{stage.stage}"><div class="ph"><b>{name}</b> '
                f'<span class="none">{esc(stage.missing)}</span></div></div>')
    loop = _loop_set(stage)
    fragments = html_lines(stage.text, stage.stage)
    classes = ["l m" if n in loop else "l" for n in range(1, len(fragments) + 1)]
    notes = []
    span = stage.loop_lines
    if span is not None:
        notes.append(f'main loop: lines {span[0]}–{span[1]} <button class="jump" type="button" '
                     f'data-line="{span[0]}" data-end="{span[1]}">go to it</button> '
                     f'<span class="why">{esc(stage.loop.reason)}</span>')
    else:
        reason = stage.loop.reason if stage.loop is not None else stage.loop_error
        notes.append(f'<span class="why">no main loop: {esc(reason)}</span>')
    if stage.attribution_note:
        notes.append(f'<span class="why">{esc(stage.attribution_note)}</span>')
    return (f'<div class="pane{active}" data-stage="{stage.stage}"><div class="ph"><b>{name}</b> '
            f'<span class="digest">sha256 {esc(stage.digest)}</span> · {" · ".join(notes)}</div>'
            f'<div class="scroll"><pre class="code">{_lines(fragments, classes)}</pre></div></div>')


def _python_pane(kernel: KernelData) -> str:
    name = esc(file_name(kernel.source_file))
    if kernel.source_text is None:
        return (f'<div class="pane py active" data-stage="python"><div class="ph"><b>Python</b> '
                f'<span class="none">{esc(kernel.source_missing)}</span></div></div>')
    produced = {line for stage in kernel.stages for line in stage.to_python if line}
    fragments = html_lines(kernel.source_text, "python")
    classes = ["l a" if n in produced else "l" for n in range(1, len(fragments) + 1)]
    return (f'<div class="pane py active" data-stage="python"><div class="ph"><b>Python</b> '
            f'<span title="{esc(kernel.source_file)}">{name}</span> · click a marked line</div>'
            f'<div class="scroll"><pre class="code">{_lines(fragments, classes)}</pre></div></div>')


def _attribution_json(kernel: KernelData) -> dict:
    stages = {}
    for stage in kernel.stages:
        if stage.text is None:
            continue
        stages[stage.stage] = {"to": list(stage.to_python),
                               "from": {str(k): v for k, v in stage.from_python.items()}}
    return {"label": kernel.label, "file": kernel.source_file, "stages": stages}


def _kernel_code(index: int, kernel: KernelData, name: str) -> str:
    default = _default_stage(kernel)
    tabs = "".join(f'<button type="button" data-stage="{s.stage}"{" class=on" if s.stage == default else ""}>'
                   f"{STAGE_TITLES[s.stage]}</button>" for s in kernel.stages)
    panes = "".join(_stage_pane(stage, default) for stage in kernel.stages)
    return (f'<section class="kernel" id="code-{index}" data-k="{index}" data-json="attr-{index}">'
            f'<h2>{esc(name)}: source and stages</h2>'
            f'<div class="tabs" role="tablist">{tabs}</div>'
            '<p class="status">Click a Python line: the lines it became are marked in every stage. Click an '
            "instruction: its Python line is marked. The main loop has a bar on the left.</p>"
            f'<div class="grid">{_python_pane(kernel)}<div class="stages">{panes}</div></div>'
            f'<script type="application/json" id="attr-{index}">{script_json(_attribution_json(kernel))}</script>'
            "</section>")


def render(kernels: Sequence[KernelData]) -> str:
    names = side_names(kernels)
    two = len(kernels) == 2
    nav = [("facts", "facts"), ("resources", "registers"), ("findings", "findings")]
    nav += [(f"code-{i}", f"{name}: stages") for i, name in enumerate(names)]
    with_passes = any(k.pass_history is not None or k.pass_reason is not None for k in kernels)
    if two:
        nav.append(("loop-diff", "main-loop diff"))
    if with_passes:
        nav.append(("passes", "passes"))
    links = " · ".join(f'<a href="#{target}">{esc(text)}</a>' for target, text in nav)
    body = [header(kernels), f"<nav>{links}</nav>", facts_section(kernels), resources_section(kernels),
            findings_section(kernels)]
    body += [_kernel_code(i, kernel, name) for i, (kernel, name) in enumerate(zip(kernels, names, strict=True))]
    if two:
        body.append(loop_diff_section(*kernels))
    if with_passes:
        body.append(passes_section(kernels))
    css = _asset("page.css") + stylesheet(".code")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            # Belt and braces for a file opened from disk: the page may fetch nothing, run no other script.
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; '
            "script-src 'unsafe-inline'; img-src data:\">"
            f"<title>{esc(title(kernels))}</title><style>{css}</style>"
            # Set before the body is parsed, so the hidden stage panes are never laid out (the load time).
            '<script>document.documentElement.classList.add("js")</script></head><body>'
            + "".join(body)
            + '<footer>made by <code>ttinspect html</code></footer>'
            + f'<script>{_asset("page.js")}</script></body></html>\n')

"""`ttinspect html FILE.ttcap -o run.html`: the run on one index page, each compile a page of its own.

The index holds the run (command, device, Triton), a table of every captured compile the worst first (as
`ttinspect check FILE.ttcap` sorts them: findings, spills, launches), and a section per compile: where the
kernel is, its config and autotuner times, the launches by site with their grids and argument shapes, and
its findings. Each compile's own page is the one `ttinspect html REF` writes (facts, findings with
evidence, every stage, the pass timeline), kept in a folder beside the index (`run-kernels/`) and linked
from it. Like every page, they fetch nothing.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Sequence

from ttinspect.check.captured import CheckedCompile, check_capture
from ttinspect.errors import TTInspectError, UsageError
from ttinspect.files.outputs import check_output, not_a_regular_file, write_atomically
from ttinspect.html.sections import esc
from ttinspect.html.write import parse_stages, write_html

MAX_ARGS = 4  # argument-shape lines per compile (the capture keeps the first few distinct)


def pages_folder(index: Path) -> Path:
    """Where the compiles' own pages go: `run-kernels/` beside `run.html`."""
    return index.with_name(f"{index.stem}-kernels")


def write_capture_html(text: str, out: str | os.PathLike, *, options: Any = None, force: bool = False,
                       passes: bool = True, stages: Any = None) -> Path:
    """Write the index to `out` and a page per compile beside it; return the index's path. Paths are checked
    before anything compiles: an existing index or pages folder needs `force`."""
    parse_stages(stages)
    index = check_output(out, force=force, option="-o")
    folder = pages_folder(index)
    if folder.exists() or folder.is_symlink():
        mode = folder.lstat().st_mode
        if not folder.is_dir() or folder.is_symlink():
            raise UsageError(f"{folder} is {not_a_regular_file(folder, mode) or 'a file'}; the compiles' pages "
                             "go into a folder of that name beside the index")
        if not force:
            raise UsageError(f"{folder} already exists (the compiles' pages of an earlier index); --force "
                             "overwrites them")
    listing, rows = check_capture(text, options)
    made_folder = not folder.exists()
    folder.mkdir(exist_ok=True)
    written: list[Path] = []
    try:
        pages, problems = _write_pages(rows, folder, written, passes, stages)
        write_atomically(check_output(index, force=force, option="-o"),
                         render_index(listing, rows, pages, problems), force=force)
    except BaseException:  # no index: the pages this run wrote go too, so a failure leaves nothing half made
        for page in written:
            page.unlink(missing_ok=True)
        if made_folder:
            try:
                folder.rmdir()
            except OSError:  # something else appeared in it meanwhile: kept
                pass
        raise
    return index


def _write_pages(rows: Sequence[CheckedCompile], folder: Path, written: list[Path], passes: bool, stages: Any
                 ) -> tuple[list[str | None], list[str | None]]:
    """Each checked compile's own page, written into `folder` (each path added to `written` once it is):
    (the pages' links, the one-line reason a page could not be made), one of each per row."""
    pages: list[str | None] = []
    problems: list[str | None] = []
    for number, row in enumerate(rows, 1):
        if row.report is None:
            pages.append(None)
            problems.append(None)
            continue
        name = f"{number:02d}-{row.row['kernel']}" + (f"-{row.row['number']}" if row.row["of"] > 1 else "") + ".html"
        try:
            written.append(write_html(row.report, folder / name, force=True, passes=passes, stages=stages))
        except TTInspectError as error:  # the index still says everything else about it
            pages.append(None)
            problems.append(str(error))
            continue
        pages.append(f"{folder.name}/{name}")
        problems.append(None)
    return pages, problems


def render_index(listing: Mapping[str, Any], rows: Sequence[CheckedCompile], pages: Sequence[str | None],
                 problems: Sequence[str | None]) -> str:
    run = listing["run"]
    command = " ".join(run["argv"]) or "?"
    body = [f"<header><h1>ttinspect: the run of <code>{esc(command)}</code></h1>{_run_table(listing)}</header>",
            '<nav><a href="#compiles">compiles</a> · '
            + " · ".join(f'<a href="#c{n}">{esc(_name(r))}</a>' for n, r in enumerate(rows, 1)) + "</nav>",
            _summary(rows, pages)]
    sections = enumerate(zip(rows, pages, problems, strict=True), 1)
    body += [_section(n, row, page, problem) for n, (row, page, problem) in sections]
    css = resources.files(__package__).joinpath("page.css").read_text(encoding="utf-8")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">'
            f"<title>{esc(f'ttinspect: {command}')}</title><style>{css}</style></head><body>"
            + "".join(body) + "<footer>made by <code>ttinspect html</code></footer></body></html>\n")


def _name(row: CheckedCompile) -> str:
    return row.row["kernel"] + (f"#{row.row['number']}" if row.row["of"] > 1 else "")


def _run_table(listing: Mapping[str, Any]) -> str:
    run = listing["run"]
    device = run.get("device") or {}
    state = ("complete" if run["complete"] else "stopped before the capture ended (a crash or a kill)")
    if run.get("exit_code") is not None:
        state += f", exit code {run['exit_code']}"
    rows = [("capture", listing["capture"]), ("command", " ".join(run["argv"])), ("folder", run.get("cwd") or "?"),
            ("recorded", run.get("created") or "?"),
            ("device", device.get("name") or ("Triton's interpreter" if run["interpreter"] else "none seen")),
            ("Triton", run.get("triton") or "?"), ("torch", run.get("torch") or "-"), ("the run", state)]
    return '<table class="meta"><tbody>' + "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows) \
        + "</tbody></table>"


def _counts(row: CheckedCompile) -> str:
    said = ", ".join(f"{row.counts[level]} {level}" for level in ("error", "warning", "info") if row.counts.get(level))
    return said or "none"


def _summary(rows: Sequence[CheckedCompile], pages: Sequence[str | None]) -> str:
    head = "".join(f"<th>{h}</th>" for h in ("kernel", "launches", "target", "spills", "registers", "findings",
                                              "page"))
    lines = []
    for n, (row, page) in enumerate(zip(rows, pages, strict=True), 1):
        findings = f"could not check: {esc(row.error)}" if row.error is not None else esc(_counts(row))
        link = f'<a href="{esc(page)}">facts and stages</a>' if page else "-"
        target = row.report.target if row.report is not None else row.row["target"] or "-"
        lines.append(f'<tr><td><a href="#c{n}">{esc(_name(row))}</a></td><td>{row.row["launches"]}</td>'
                     f"<td>{esc(target)}</td><td>{_number(row.spills)}</td><td>{_number(row.registers)}</td>"
                     f"<td>{findings}</td><td>{link}</td></tr>")
    return (f'<section id="compiles"><h2>{len(rows)} compile(s), the worst first</h2><p>Sorted by findings (errors, '
            "then warnings, then infos), then spills, then launches.</p>"
            f'<table class="facts"><thead><tr>{head}</tr></thead><tbody>{"".join(lines)}</tbody></table></section>')


def _section(number: int, row: CheckedCompile, page: str | None, problem: str | None) -> str:
    r = row.row
    facts = [("reference", f"<code>{esc(r['ref'])}</code>"),
             ("defined at", esc(f"{r['file'] or '?'}:{r['line'] or '?'}")
              + (" (generated by torch.compile)" if r["inductor"] else "")),
             ("source now", esc(r["source"])),
             ("config", " ".join(f"<code>{esc(k)}={esc(v)}</code>" for k, v in r["config"].items()) or "(none)"),
             ("launches", esc(", ".join(f"{s['count']} from {s['site']}" for s in r["sites"]) or "none")),
             ("grids", esc(", ".join("x".join(map(str, g)) for g in r["grids"]) or "-")),
             ("arguments", "<br>".join(f"<code>{esc(arguments_text(a))}</code>" for a in r["args"][:MAX_ARGS])
              or "-")]
    for result in r["autotune"]:
        ms = f"{result['ms']:.4f} ms" if result["ms"] is not None else "not timed"
        best = "the winner" if result["winner"] else f"the winner took {result['best_ms']:.4f} ms" \
            if result["best_ms"] is not None else "not the winner"
        facts.append(("autotune", esc(f"config {result['config']} of {result['configs']} for key {result['key']}: "
                                      f"{ms}, {best}")))
    if row.ptx_vs_run is not None:
        facts.append(("PTX vs the run's", esc("byte-identical to the PTX the run compiled" if row.ptx_vs_run == "same"
                                              else f"differs from the run's ({r['triton_cache_dir']})")))
    if page:
        facts.append(("page", f'<a href="{esc(page)}">facts, findings with evidence, every stage</a>'))
    elif problem:
        facts.append(("page", esc(f"not made: {problem}")))
    table = "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in facts)
    if row.error is not None:
        found = f'<p class="none">could not be checked: {esc(row.error)}</p>'
    elif not row.findings:
        found = '<p class="none">no findings</p>'
    else:
        found = "".join(f'<div class="finding sev-{esc(f.severity)}"><div class="ft"><span class="sev">'
                        f"{esc(f.severity.upper())}</span> <b>{esc(f.id)}</b> {esc(f.slug)}: {esc(f.title)}</div>"
                        f"<p><b>fix</b> {esc(f.fix)}</p></div>" for f in row.findings)
    return (f'<section id="c{number}"><h2>{esc(_name(row))}</h2><table class="meta"><tbody>{table}</tbody></table>'
            f"<h3>findings</h3>{found}</section>")


def arguments_text(args: Mapping[str, Any]) -> str:
    """One launch's arguments as the capture summarized them: `a_ptr float16[4096, 4096] strides (4096, 1)`
    for a tensor, `M=4096` for a scalar."""
    parts = []
    for name, value in args.items():
        if isinstance(value, Mapping) and "shape" in value:
            shape = ", ".join(map(str, value.get("shape") or ()))
            strides = value.get("strides")
            parts.append(f"{name} {value.get('dtype', '?')}[{shape}]"
                         + (f" strides ({', '.join(map(str, strides))})" if strides else ""))
        else:
            parts.append(f"{name}={json.dumps(value) if not isinstance(value, str) else value}")
    return "  ".join(parts)


def _number(value: int | None) -> str:
    return "-" if value is None else str(value)

"""The inspection commands: list, dump, report, diff. Each parses its options and calls the library."""

from __future__ import annotations

import sys

import click

from ..errors import UsageError
from .app import cli
from .common import STAGE_NAMES, arch_option, check_stage, config_option, emit_json, settings_option

@cli.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_command(as_json: bool) -> None:
    """The kernel variants ttinspect knows (from the seed documents)."""
    from ..variants import all_variants

    rows = [{"name": v.name, "aliases": list(v.aliases), "seed": v.seed, "kernel": v.kernel,
             "config": dict(v.config), "problem": dict(v.problem), "description": v.description}
            for v in all_variants()]
    if as_json:
        emit_json(rows)
        return
    from ..render.tables import variants_table

    variants_table(rows)


@cli.command()
@click.argument("variant")
@click.option("--stage", default=None, metavar="STAGE",
              help=f"One of {', '.join(STAGE_NAMES)} (default ptx).")
@arch_option
@settings_option
@click.option("--loop", is_flag=True, help="Print only the main loop.")
@click.option("--source", "with_source", is_flag=True,
              help="Interleave the kernel's Python lines with the stage text (like objdump -S).")
@click.option("--all", "dump_all", is_flag=True, help="Write every stage and metadata.json to --out.")
@click.option("--out", type=click.Path(file_okay=False), help="Directory for --all.")
@click.option("--force", is_flag=True, help="With --all: overwrite files already in --out.")
@click.option("--header/--no-header", default=True, help="Print the one-line header comment.")
@config_option
def dump(variant: str, stage: str, arch: str | None, settings: tuple[str, ...], loop: bool, with_source: bool,
         dump_all: bool, out: str | None, force: bool, header: bool, config: str | None) -> None:
    """Print one compiled stage of VARIANT (e.g. naive, opt, opt:num_stages=3)."""
    from ..engine import build
    from ..stages import get_stage
    from ..variants import parse_ref

    if out and not dump_all:
        raise UsageError("--out is for --all (every stage to a directory); redirect stdout to save one stage")
    if dump_all:
        if not out:
            raise UsageError("--all needs --out DIR")
        if stage or loop or with_source:
            raise UsageError("--all writes every stage whole: it takes no --stage, --loop or --source")
        ref = parse_ref(variant, settings, arch, config)
        result = build(ref.resolved, arch=ref.arch)
        from pathlib import Path

        written = result.artifacts.export(Path(out), force=force)
        click.echo(f"# {result.header()}")
        for path in written:
            click.echo(str(path))
        return
    stage = stage or "ptx"
    check_stage(stage)
    ref = parse_ref(variant, settings, arch, config)
    result = build(ref.resolved, arch=ref.arch)
    full = result.artifacts.text(stage)
    text = full
    comment = get_stage(stage).comment
    lines = []
    start, end = 1, None
    if loop:
        from ..loops import main_loop_slice

        found = main_loop_slice(stage, full)
        if found.start_line is None:
            raise UsageError(f"{result.label}: no main loop in the {stage}: {found.reason}")
        start, end = found.start_line, found.end_line
        lines.append(f"{comment} main loop: lines {start}-{end} of the {stage}"
                     + (f" ({found.reason})" if found.reason else ""))
        text = "\n".join(full.split("\n")[start - 1:end]) + "\n"
    if with_source:
        from ..source import interleave

        kernel_file, source_text = _kernel_source(ref.resolved.variant)
        text = interleave(stage, full, kernel_file, source_text, start_line=start, end_line=end)
        text += "" if text.endswith("\n") else "\n"
    if header:
        lines.insert(0, f"{comment} {result.header()}")
    from ..render.highlight import highlight, should_color

    output = "\n".join(lines) + ("\n" if lines else "") + text
    click.echo(highlight(output, stage, color=should_color(sys.stdout)), nl=False)


def _kernel_source(variant) -> tuple[str, str]:
    """The kernel's Python file and its text, for source attribution."""
    from pathlib import Path

    from ..variants import module_source_path

    path = module_source_path(variant.module)
    return path, Path(path).read_text()


@cli.command()
@click.argument("variant")
@arch_option
@settings_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--by-line", "by_line", is_flag=True,
              help="Instructions per Python line instead of the facts: whole kernel and main loop.")
@click.option("--stage", default=None, metavar="STAGE", help="With --by-line: the stage (default ptx).")
@config_option
def report(variant: str, arch: str | None, settings: tuple[str, ...], as_json: bool, by_line: bool, stage: str,
           config: str | None) -> None:
    """Facts about VARIANT's compiled code, grouped like doc 003, each with its meaning."""
    from ..engine import build
    from ..report import report_from_build
    from ..variants import parse_ref

    if stage and not by_line:
        raise UsageError("--stage goes with --by-line (the facts come from every stage)")
    ref = parse_ref(variant, settings, arch, config)
    built = build(ref.resolved, arch=ref.arch)
    if by_line:
        _report_by_line(built, ref.resolved.variant, stage or "ptx", as_json)
        return
    result = report_from_build(built)
    if as_json:
        emit_json(result.as_dict())
        return
    from ..render.tables import report_table

    report_table(result)


def _report_by_line(built, variant, stage: str, as_json: bool) -> None:
    from ..source import by_line, source_info

    check_stage(stage)
    kernel_file, source_text = _kernel_source(variant)
    text = built.artifacts.text(stage)
    info = source_info(stage, text, kernel_file)
    whole = by_line(stage, text, kernel_file, source_text=source_text)
    loop = {row.line: row for row in by_line(stage, text, kernel_file, loop_only=True, source_text=source_text)}
    if as_json:
        emit_json({"label": built.label, "target": built.target.name, "stage": stage,
                    "kernel_file": kernel_file, "reason": info.reason,
                    "lines": [{**row.as_dict(), "main_loop": loop[row.line].as_dict() if row.line in loop else None}
                              for row in whole]})
        return
    from ..render.tables import by_line_table

    by_line_table(built, stage, whole, loop, info.reason)


@cli.command("diff")
@click.argument("a")
@click.argument("b")
@arch_option
@settings_option
@click.option("--stage", default=None, metavar="STAGE",
              help=f"Also diff the two main loops of this stage ({', '.join(STAGE_NAMES)}), renumbered.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def diff_command(a: str, b: str, arch: str | None, settings: tuple[str, ...], stage: str | None,
                 as_json: bool) -> None:
    """Compare two variants: A and B are names with optional overrides and target, e.g.
    `naive opt`, `opt opt:num_stages=3`, `opt@sm_80 opt@sm_90`. --arch/--set apply to both sides."""
    from ..compare import diff_reports
    from ..engine import build
    from ..report import report_from_build
    from ..variants import parse_ref

    if stage is not None:
        check_stage(stage)
    sides = [parse_ref(ref, settings, arch) for ref in (a, b)]
    builds = [build(ref.resolved, arch=ref.arch) for ref in sides]
    result = diff_reports(*(report_from_build(x) for x in builds))
    text_diff = _loop_diff(stage, builds) if stage else None
    if as_json:
        data = result.as_dict()
        if text_diff is not None:
            data["loop_diff"] = {"stage": stage, "unified": text_diff}
        emit_json(data)
        return
    from ..render.tables import diff_table

    diff_table(result)
    if text_diff is not None:
        from ..render.highlight import should_color

        click.echo()
        click.echo(_color_diff(text_diff) if should_color(sys.stdout) else text_diff)


def _loop_diff(stage: str, builds) -> str:
    from ..compare import loop_text_diff
    from ..loops import main_loop_slice, slice_text

    texts = []
    for result in builds:
        text = result.artifacts.text(stage)
        found = main_loop_slice(stage, text)
        if found.start_line is None:
            return f"(no loop diff: {result.label} has no main loop in its {stage}: {found.reason})"
        texts.append(slice_text(text, found))
    labels = [f"{r.label}@{r.target.name} main loop ({stage}, renumbered)" for r in builds]
    return loop_text_diff(stage, texts[0], texts[1], *labels) or "(the main loops are identical)"


def _color_diff(text: str) -> str:
    colors = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}
    return "\n".join(colors.get(line[:1], "") + line + ("\x1b[0m" if line[:1] in colors else "")
                     for line in text.splitlines())



"""The inspection commands: list, dump, report, diff. Each parses its options and calls the library."""

from __future__ import annotations

import sys

import click

from ttinspect.ci.model import FORMATS
from ttinspect.errors import UsageError
from ttinspect.files.terminal_text import shown_block
from ttinspect.cli.app import cli
from ttinspect.cli.device_options import (arch_of_device, diff_prediction_options, diff_times, echo_diff_times,
                                          wants_prediction)
from ttinspect.cli.common import (REF_HELP, STAGE, STAGE_NAMES, VALUE, arch_option, args_options, check_stage,
                                  device_props_option, emit_json, kernel_source, options_from, ref_options,
                                  settings_option, source_option, stage_for)

@cli.command("list")
@click.argument("file", required=False)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@arch_option
def list_command(file: str | None, as_json: bool, arch: str | None) -> None:
    """The kernel variants ttinspect ships, or with FILE (or a module: pkg.mod) every kernel a reference can
    name in it, of every kind (jit, autotune, gluon, helion), and its examples, imported as seen by --arch's
    virtual device."""
    if file is None and arch is not None:
        raise UsageError("--arch is for `list FILE` (the file is imported as that target's GPU would see it)")
    if file is not None:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.refs.listing import list_file

        listing = list_file(file, arch)
        if as_json:
            emit_json(listing)
            return
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.render.listing import file_listing_table

        file_listing_table(listing)
        return
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.kernel.catalog import all_variants

    rows = [{"name": v.name, "aliases": list(v.aliases), "seed": v.seed, "kernel": v.kernel,
             "config": dict(v.config), "problem": dict(v.problem), "description": v.description}
            for v in all_variants()]
    if as_json:
        emit_json(rows)
        return
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.render.tables import variants_table

    variants_table(rows)


@cli.command(epilog=REF_HELP)
@click.argument("ref", metavar="REF")
@click.option("--stage", default=None, metavar="STAGE", type=STAGE,
              help=f"One of {', '.join(STAGE_NAMES)} (default asm: ptx, or amdgcn for an AMD target).")
@ref_options
@click.option("--loop", is_flag=True, help="Print only the main loop.")
@click.option("--source", "sources", is_flag=False, flag_value="lines", multiple=True,
              type=click.Choice(("lines", "captured", "current")),
              help="Alone (or `lines`): interleave the kernel's Python lines with the stage text (like objdump -S). "
                   "captured / current: a captured kernel (FILE.ttcap:KERNEL) whose file changed since the run: "
                   "compile the text the capture kept, or the file as it is now, as every command takes it "
                   "(repeat --source for both: --source captured --source).")
@click.option("--all", "dump_all", is_flag=True, help="Write every stage and metadata.json to --out.")
@click.option("--out", help="Directory for --all.")
@click.option("--force", is_flag=True, help="With --all: overwrite files already in --out.")
@click.option("--header/--no-header", default=True, help="Print the one-line header comment.")
def dump(ref: str, stage: str, arch: str | None, settings: tuple[str, ...], args: tuple[str, ...],
         signature: str | None, config: str | None, loop: bool, sources: tuple[str, ...], dump_all: bool,
         out: str | None, force: bool, header: bool) -> None:
    """Print one compiled stage of REF (e.g. naive, opt:num_stages=3, my_mm.py:matmul, cache:3fa9c2)."""
    with_source = "lines" in sources
    captured = sorted({s for s in sources if s != "lines"})
    if len(captured) > 1:
        raise UsageError("--source captured and --source current: choose one text for the captured kernel")
    # as --source of every other command that takes a capture reference (cli/common.py's source_option)
    click.get_current_context().meta["ttinspect.source"] = captured[0] if captured else None
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.refs.resolver import resolve_one
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.dialects.stages import get_stage

    if out and not dump_all:
        raise UsageError("--out is for --all (every stage to a directory); redirect stdout to save one stage")
    if dump_all:
        if not out:
            raise UsageError("--all needs --out DIR")
        if stage or loop or with_source:
            raise UsageError("--all writes every stage whole: it takes no --stage, --loop or --source")
        from pathlib import Path

        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.dialects.stages import STAGES
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.files.outputs import check_output_folder

        folder = check_output_folder(Path(out), STAGES)  # before anything compiles
        result = resolve_one(ref, options_from(arch, settings, args, signature, config))
        written = result.artifacts.export(folder, force=force)
        from ttinspect.files.terminal_text import shown  # as above

        click.echo(f"# {shown(result.header())}")
        for path in written:
            click.echo(str(path))
        return
    stage = stage or "asm"
    check_stage(stage)
    result = resolve_one(ref, options_from(arch, settings, args, signature, config))
    stage = stage_for(stage, result)
    full = result.artifacts.text(stage)
    text = full
    comment = get_stage(stage).comment
    lines = []
    start, end = 1, None
    if loop:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.dialects.main_loop import main_loop_slice

        found = main_loop_slice(stage, full)
        if found.start_line is None:
            raise UsageError(f"{result.label}: no main loop in the {stage}: {found.reason}")
        start, end = found.start_line, found.end_line
        lines.append(f"{comment} main loop: lines {start}-{end} of the {stage}"
                     + (f" ({found.reason})" if found.reason else ""))
        text = "\n".join(full.split("\n")[start - 1:end]) + "\n"
    if with_source:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.source import interleave

        kernel_file, source_text = kernel_source(result)
        text = interleave(stage, full, kernel_file, source_text, start_line=start, end_line=end)
        text += "" if text.endswith("\n") else "\n"
    if header:
        lines.insert(0, f"{comment} {result.header()}")
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.render.highlight import highlight, should_color

    output = "\n".join(lines) + ("\n" if lines else "") + text
    colored = should_color(sys.stdout)
    click.echo(highlight(output, stage, color=colored), nl=False, color=colored)


@cli.command(epilog=REF_HELP)
@click.argument("ref", metavar="REF")
@ref_options
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--by-line", "by_line", is_flag=True,
              help="Instructions per Python line instead of the facts: whole kernel and main loop.")
@click.option("--stage", default=None, metavar="STAGE", type=STAGE, help="With --by-line: the stage (default ptx).")
@click.option("--explain", is_flag=True, help="Every fact (detail facts too), each with its full explanation.")
def report(ref: str, arch: str | None, settings: tuple[str, ...], args: tuple[str, ...], signature: str | None,
           config: str | None, as_json: bool, by_line: bool, stage: str, explain: bool) -> None:
    """Facts about REF's compiled code, grouped like doc 003, each with its meaning. With `--config all`,
    one row per autotune config."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.refs.resolver import resolve, resolve_one
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.report.collect import report_from_build

    if stage and not by_line:
        raise UsageError("--stage goes with --by-line (the facts come from every stage)")
    options = options_from(arch, settings, args, signature, config)
    if str(config).strip().lower() == "all" and not by_line:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.render.config_rows import config_rows

        rows = config_rows(resolve(ref, options, keep_going=True))
        if as_json:
            emit_json([row.as_dict() for row in rows])
        else:
            # loaded when the command runs: every command module is imported at start-up
            from ttinspect.render.configs import config_table

            config_table(rows)
        if rows and all(row.error for row in rows):  # some failing is a finding of the table; all, a failure
            # loaded when the command runs: every command module is imported at start-up
            from ttinspect.errors import failures_exit_code

            raise click.exceptions.Exit(failures_exit_code([row.exit_code for row in rows]))
        return
    built = resolve_one(ref, options)
    if by_line:
        _report_by_line(built, stage_for(stage or "asm", built), as_json)
        return
    result = report_from_build(built)
    if as_json:
        emit_json(result.as_dict())
        return
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.render.report_view import print_report

    print_report(result, explain=explain)


def _report_by_line(built, stage: str, as_json: bool) -> None:
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.report.model import build_device_line
    from ttinspect.source import by_line, source_info

    check_stage(stage)
    kernel_file, source_text = kernel_source(built)
    text = built.artifacts.text(stage)
    info = source_info(stage, text, kernel_file)
    whole = by_line(stage, text, kernel_file, source_text=source_text)
    loop = {row.line: row for row in by_line(stage, text, kernel_file, loop_only=True, source_text=source_text)}
    if as_json:
        device = build_device_line(built)
        emit_json({"label": built.label, "target": built.target.name, "stage": stage,
                    **({"device": device} if device else {}), "kernel_file": kernel_file, "reason": info.reason,
                    "lines": [{**row.as_dict(), "main_loop": loop[row.line].as_dict() if row.line in loop else None}
                              for row in whole]})
        return
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.render.tables import by_line_table

    by_line_table(built, stage, whole, loop, info.reason)


@cli.command("diff", epilog=REF_HELP)
@click.argument("a", metavar="A")
@click.argument("b", metavar="[B]", required=False)
@arch_option
@settings_option
@args_options
@device_props_option
@source_option
@click.option("--config", "configs", multiple=True, metavar="N|best", type=VALUE,
              help="An @triton.autotune kernel's N-th config (1-based; a shipped variant's also `best`): once for "
                   "both sides, or twice for A's then B's; with one REF, twice: `diff REF --config 2 --config 4` "
                   "compares two configs of one kernel.")
@click.option("--stage", default=None, metavar="STAGE", type=STAGE,
              help=f"Also diff the two main loops of this stage ({', '.join(STAGE_NAMES)}), renumbered.")
@click.option("--passes", "passes", is_flag=True,
              help="Also compare the two pass histories: the first pass after which a snapshot fact differs.")
@click.option("--all", "show_all", is_flag=True,
              help="Also list the unchanged facts, and explain the detail facts that changed.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (the same as --format json).")
@click.option("--format", "fmt", default="text", show_default=True,
              type=click.Choice(FORMATS),
              help="text (the terminal view), json, or for CI: sarif (GitHub code scanning), markdown (a PR "
                   "comment, $GITHUB_STEP_SUMMARY), junit (a test report); one note per changed fact.")
@click.option("-o", "--output", "out", default=None, metavar="FILE",
              help="Write --format's output to FILE (atomically; its folder must exist) instead of stdout.")
@click.option("--force", is_flag=True, help="With -o: overwrite FILE if it exists.")
@diff_prediction_options
def diff_command(a: str, b: str | None, arch: str | None, settings: tuple[str, ...], args: tuple[str, ...],
                 signature: str | None, configs: tuple[str, ...], stage: str | None, passes: bool, show_all: bool,
                 as_json: bool, fmt: str, out: str | None, force: bool, device: str | None, device_profile,
                 size: int | None, launch_grids: tuple[str, ...]) -> None:
    """Compare two kernels: A and B are references with optional overrides and target, e.g.
    `naive opt`, `opt opt:num_stages=3`, `opt@sm_80 opt@sm_90`, `my_mm.py:small my_mm.py:big`,
    `cache:3fa9c2 cache:77b01e`, or two autotune configs of one kernel: `my_mm.py:matmul --config 1
    --config 3`. --arch/--set/--arg/--signature apply to both sides; --config to both, or one per side.
    With --device (--size, --device-profile): each side's predicted time, doc 003 §5 (docs/predict.md)."""
    import time

    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.ci.model import CI_FORMATS
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.ci.write import check_format_and_output, format_of
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.refs.resolver import resolve_one

    fmt = format_of(as_json, fmt)
    as_json = fmt == "json"
    if fmt in CI_FORMATS and (stage or passes or show_all):
        raise UsageError(f"--format {fmt} lists the changed facts; --stage, --passes and --all go with text or json")
    predicting, device_profile = wants_prediction(fmt, fmt in CI_FORMATS, device, device_profile, size, launch_grids)
    arch = arch_of_device(arch, device, device_profile)
    settings = (*settings, *(f"{n}={size}" for n in "MNK" if size is not None))
    if stage is not None:
        check_stage(stage)
    check_format_and_output(fmt, out, force)  # before compiling: a refused -o costs nothing
    started = time.perf_counter()
    sides = [(ref, options_from(arch, settings, args, signature, config)) for ref, config in _sides(a, b, configs)]
    from contextlib import nullcontext

    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.engine.builds import compile_with_pass_dumps

    if passes:
        with compile_with_pass_dumps() if passes else nullcontext():  # a cold build compiles once, with dumps
            builds = [resolve_one(ref, options) for ref, options in sides]
    elif sides[0][1] == sides[1][1]:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.sweep.executors import resolve_pair

        builds = resolve_pair(sides[0][0], sides[1][0], sides[0][1])
    else:  # a config per side: resolve_pair takes one set of options for both
        builds = [resolve_one(ref, options) for ref, options in sides]
    plain = fmt == "text" and not (stage or passes or show_all or predicting)
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.render.kept import echo_kept, render_and_keep

    if plain and echo_kept(builds):
        return
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.compare.facts_diff import diff_reports
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.report.collect import report_from_build

    reports = [report_from_build(x) for x in builds]
    result = diff_reports(*reports)
    predicted = diff_times([r for r, _ in sides], reports, device, device_profile, launch_grids, args, signature) \
        if predicting else None
    text_diff = None
    if stage:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.compare.loop_diff import main_loop_diff

        text_diff = main_loop_diff(stage, builds)
    divergence = None
    if passes:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.passes import history
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.passes.align import diverge

        divergence = diverge(*(history(x) for x in builds))
    if as_json:
        data = result.as_dict()
        if text_diff is not None:
            data["loop_diff"] = {"stage": stage, "unified": text_diff}
        if divergence is not None:
            data["passes"] = divergence.as_dict()
        if predicted is not None:
            data["predicted"] = predicted
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.ci.write import write_text
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.render.jsonout import dumps

        write_text(dumps(data) + "\n", out, force)  # stdout when out is None
        return
    if fmt in CI_FORMATS:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.ci.from_check import find_repo_root
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.ci.from_diff import ci_from_diff
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.ci.write import emit

        root = find_repo_root()
        emit(ci_from_diff(result, root, seconds=time.perf_counter() - started), fmt, out, force, root)
        return
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.render.diff_view import print_diff

    if plain:
        render_and_keep(builds, lambda: print_diff(result))
        return
    print_diff(result, show_all=show_all)
    if predicted is not None:
        echo_diff_times(predicted)
    if text_diff is not None:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.render.highlight import should_color

        click.echo()
        colored = should_color(sys.stdout)
        text_diff = shown_block(text_diff)  # the kernels' own lines: their control characters quoted
        click.echo(_color_diff(text_diff) if colored else text_diff, color=colored)
    if divergence is not None:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.render.passes import divergence_text

        click.echo()
        click.echo(shown_block(divergence_text(divergence)))


def _sides(a: str, b: str | None, configs: tuple[str, ...]) -> list[tuple[str, str | None]]:
    """Each side's reference and --config: one --config applies to both sides, two are A's then B's, and
    one reference with two compares two configs of that kernel."""
    if len(configs) > 2:
        raise UsageError(f"diff takes --config once (both sides) or twice (A's, then B's), not {len(configs)} times")
    if b is None:
        if len(configs) != 2:
            raise UsageError(f"diff compares two kernels: give A and B, or one kernel and two configs "
                             f"(`ttinspect diff {a} --config 1 --config 2`)")
        return [(a, configs[0]), (a, configs[1])]
    if len(configs) == 2:
        return [(a, configs[0]), (b, configs[1])]
    return [(a, configs[0] if configs else None), (b, configs[0] if configs else None)]


def _color_diff(text: str) -> str:
    colors = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}
    return "\n".join(colors.get(line[:1], "") + line + ("\x1b[0m" if line[:1] in colors else "")
                     for line in text.splitlines())



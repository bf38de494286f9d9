"""The command line: each command parses its options, calls one library function and renders the result.

Imports are lazy: `ttinspect --help` and a warm `dump` must not pay for triton, torch, rich or pygments
unless they need them.
"""

from __future__ import annotations

import os
import sys

import click

from .errors import TTInspectError, UsageError

STAGE_NAMES = ("ttir", "ttgir", "llir", "ptx", "sass")  # the text stages (stages.TEXT_STAGES)


def _emit_json(data) -> None:
    from .render.jsonout import dumps

    click.echo(dumps(data))


def _check_stage(stage: str) -> None:
    if stage not in STAGE_NAMES:
        raise UsageError(f"unknown stage {stage!r}; valid: {', '.join(STAGE_NAMES)}")


def _fail(error: TTInspectError) -> None:
    click.echo(f"ttinspect: error: {error}", err=True)
    sys.exit(error.exit_code)


class _Group(click.Group):
    """Maps our exceptions to one clear line and an exit code; never a traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except TTInspectError as error:
            _fail(error)
        except (click.exceptions.Exit, click.ClickException, click.Abort, BrokenPipeError):
            raise
        except OSError as error:  # a path the user gave (--out, TTINSPECT_CACHE_DIR) that cannot be used
            where = f": {error.filename}" if error.filename else ""
            click.echo(f"ttinspect: error: {error.strerror or error}{where}", err=True)
            sys.exit(1)
        except KeyboardInterrupt:
            click.echo("ttinspect: interrupted", err=True)
            sys.exit(130)
        except Exception as error:  # a bug in ttinspect: still one line, traceback on request
            if os.environ.get("TTINSPECT_DEBUG"):
                raise
            click.echo(f"ttinspect: internal error: {type(error).__name__}: {error} "
                       "(set TTINSPECT_DEBUG=1 for the traceback)", err=True)
            sys.exit(70)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ttinspect")
def cli() -> None:
    """Inspect what the Triton compiler did with a kernel: every IR stage (TTIR, TTGIR, LLIR, PTX,
    SASS) for any NVIDIA target, without a GPU.

    \b
    Examples:
      ttinspect list
      ttinspect dump matmul_opt --stage ptx
      ttinspect dump naive --stage ttgir --arch sm_90
      ttinspect dump opt --stage ptx --set num_stages=3 --set BLOCK_SIZE_N=64
      ttinspect dump opt --all --out build/opt-sm90/ --arch sm_90
    """


@cli.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_command(as_json: bool) -> None:
    """The kernel variants ttinspect knows (from the seed documents)."""
    from .variants import all_variants

    rows = [{"name": v.name, "aliases": list(v.aliases), "seed": v.seed, "kernel": v.kernel,
             "config": dict(v.config), "problem": dict(v.problem), "description": v.description}
            for v in all_variants()]
    if as_json:
        _emit_json(rows)
        return
    from .render.tables import variants_table

    variants_table(rows)


def _settings_option(f):
    return click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
                        help="Override a config or problem value (repeatable), e.g. --set num_stages=3.")(f)


def _config_option(f):
    return click.option("--config", "config", default=None, metavar="best|N",
                        help="Start from the saved autotune winner (`best`, from `ttinspect autotune`) or "
                             "the variant's N-th autotune config; --set still applies on top.")(f)


def _arch_option(f):
    return click.option("--arch", default=None, metavar="ARCH",
                        help="Target: sm_80, sm_86, sm_89 (default), sm_90, sm_100, sm_120, or native.")(f)


@cli.command()
@click.argument("variant")
@click.option("--stage", default=None, metavar="STAGE",
              help=f"One of {', '.join(STAGE_NAMES)} (default ptx).")
@_arch_option
@_settings_option
@click.option("--loop", is_flag=True, help="Print only the main loop.")
@click.option("--source", "with_source", is_flag=True,
              help="Interleave the kernel's Python lines with the stage text (like objdump -S).")
@click.option("--all", "dump_all", is_flag=True, help="Write every stage and metadata.json to --out.")
@click.option("--out", type=click.Path(file_okay=False), help="Directory for --all.")
@click.option("--force", is_flag=True, help="With --all: overwrite files already in --out.")
@click.option("--header/--no-header", default=True, help="Print the one-line header comment.")
@_config_option
def dump(variant: str, stage: str, arch: str | None, settings: tuple[str, ...], loop: bool, with_source: bool,
         dump_all: bool, out: str | None, force: bool, header: bool, config: str | None) -> None:
    """Print one compiled stage of VARIANT (e.g. naive, opt, opt:num_stages=3)."""
    from .engine import build
    from .stages import get_stage
    from .variants import parse_ref

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
    _check_stage(stage)
    ref = parse_ref(variant, settings, arch, config)
    result = build(ref.resolved, arch=ref.arch)
    full = result.artifacts.text(stage)
    text = full
    comment = get_stage(stage).comment
    lines = []
    start, end = 1, None
    if loop:
        from .loops import main_loop_slice

        found = main_loop_slice(stage, full)
        if found.start_line is None:
            raise UsageError(f"{result.label}: no main loop in the {stage}: {found.reason}")
        start, end = found.start_line, found.end_line
        lines.append(f"{comment} main loop: lines {start}-{end} of the {stage}"
                     + (f" ({found.reason})" if found.reason else ""))
        text = "\n".join(full.split("\n")[start - 1:end]) + "\n"
    if with_source:
        from .source import interleave

        kernel_file, source_text = _kernel_source(ref.resolved.variant)
        text = interleave(stage, full, kernel_file, source_text, start_line=start, end_line=end)
        text += "" if text.endswith("\n") else "\n"
    if header:
        lines.insert(0, f"{comment} {result.header()}")
    from .render.highlight import highlight, should_color

    output = "\n".join(lines) + ("\n" if lines else "") + text
    click.echo(highlight(output, stage, color=should_color(sys.stdout)), nl=False)


def _kernel_source(variant) -> tuple[str, str]:
    """The kernel's Python file and its text, for source attribution."""
    from pathlib import Path

    from .variants import module_source_path

    path = module_source_path(variant.module)
    return path, Path(path).read_text()


@cli.command()
@click.argument("variant")
@_arch_option
@_settings_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--by-line", "by_line", is_flag=True,
              help="Instructions per Python line instead of the facts: whole kernel and main loop.")
@click.option("--stage", default=None, metavar="STAGE", help="With --by-line: the stage (default ptx).")
@_config_option
def report(variant: str, arch: str | None, settings: tuple[str, ...], as_json: bool, by_line: bool, stage: str,
           config: str | None) -> None:
    """Facts about VARIANT's compiled code, grouped like doc 003, each with its meaning."""
    from .engine import build
    from .report import report_from_build
    from .variants import parse_ref

    if stage and not by_line:
        raise UsageError("--stage goes with --by-line (the facts come from every stage)")
    ref = parse_ref(variant, settings, arch, config)
    built = build(ref.resolved, arch=ref.arch)
    if by_line:
        _report_by_line(built, ref.resolved.variant, stage or "ptx", as_json)
        return
    result = report_from_build(built)
    if as_json:
        _emit_json(result.as_dict())
        return
    from .render.tables import report_table

    report_table(result)


def _report_by_line(built, variant, stage: str, as_json: bool) -> None:
    from .source import by_line, source_info

    _check_stage(stage)
    kernel_file, source_text = _kernel_source(variant)
    text = built.artifacts.text(stage)
    info = source_info(stage, text, kernel_file)
    whole = by_line(stage, text, kernel_file, source_text=source_text)
    loop = {row.line: row for row in by_line(stage, text, kernel_file, loop_only=True, source_text=source_text)}
    if as_json:
        _emit_json({"label": built.label, "target": built.target.name, "stage": stage,
                    "kernel_file": kernel_file, "reason": info.reason,
                    "lines": [{**row.as_dict(), "main_loop": loop[row.line].as_dict() if row.line in loop else None}
                              for row in whole]})
        return
    from .render.tables import by_line_table

    by_line_table(built, stage, whole, loop, info.reason)


@cli.command("diff")
@click.argument("a")
@click.argument("b")
@_arch_option
@_settings_option
@click.option("--stage", default=None, metavar="STAGE",
              help=f"Also diff the two main loops of this stage ({', '.join(STAGE_NAMES)}), renumbered.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def diff_command(a: str, b: str, arch: str | None, settings: tuple[str, ...], stage: str | None,
                 as_json: bool) -> None:
    """Compare two variants: A and B are names with optional overrides and target, e.g.
    `naive opt`, `opt opt:num_stages=3`, `opt@sm_80 opt@sm_90`. --arch/--set apply to both sides."""
    from .compare import diff_reports
    from .engine import build
    from .report import report_from_build
    from .variants import parse_ref

    if stage is not None:
        _check_stage(stage)
    sides = [parse_ref(ref, settings, arch) for ref in (a, b)]
    builds = [build(ref.resolved, arch=ref.arch) for ref in sides]
    result = diff_reports(*(report_from_build(x) for x in builds))
    text_diff = _loop_diff(stage, builds) if stage else None
    if as_json:
        data = result.as_dict()
        if text_diff is not None:
            data["loop_diff"] = {"stage": stage, "unified": text_diff}
        _emit_json(data)
        return
    from .render.tables import diff_table

    diff_table(result)
    if text_diff is not None:
        from .render.highlight import should_color

        click.echo()
        click.echo(_color_diff(text_diff) if should_color(sys.stdout) else text_diff)


def _loop_diff(stage: str, builds) -> str:
    from .compare import loop_text_diff
    from .loops import main_loop_slice, slice_text

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


# --- the GPU side: each command needs a CUDA GPU and says so in one line without one ---------------

def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"--sizes takes comma-separated integers, got {text!r}") from None
    if not sizes or min(sizes) <= 0:
        raise UsageError(f"--sizes takes positive integers, got {text!r}")
    return sizes


@cli.command()
@click.argument("variants", nargs=-1, required=True)
@click.option("--sizes", default="1024,2048,4096,8192", show_default=True, help="M=N=K values.")
@click.option("--dtype", default="fp16", show_default=True, help="fp16 or bf16.")
@click.option("--rounds", default=3, show_default=True, help="cuBLAS and the variants timed in turn, median.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), help="Write a matplotlib plot here.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def bench(variants: tuple[str, ...], sizes: str, dtype: str, rounds: int, plot_path: str | None,
          as_json: bool) -> None:
    """TFLOP/s of matmul VARIANTS on this GPU beside cuBLAS (median of triton.testing.do_bench)."""
    from .gpu.bench import bench as run_bench, plot, require_gpu
    from .variants import parse_ref

    require_gpu()
    sizes_list = _sizes(sizes)
    refs = [parse_ref(v).resolved for v in variants]
    result = run_bench(refs, sizes_list, dtype, rounds)
    if plot_path:
        plot(result, plot_path)
    if as_json:
        _emit_json(result.as_dict())
        return
    from .render.gpu_tables import bench_table

    bench_table(result)


@cli.command()
@click.argument("variants", nargs=-1, required=True)
@click.option("--size", default=4096, show_default=True, help="M=N=K.")
@click.option("--no-cublas", is_flag=True, help="Do not profile torch.matmul beside them.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def profile(variants: tuple[str, ...], size: int, no_cublas: bool, as_json: bool) -> None:
    """One launch of each variant under Nsight Compute: duration, L2 hit rate, DRAM bytes, tensor pipe,
    achieved occupancy."""
    from .gpu.bench import require_gpu
    from .gpu.profile import find_ncu, profile as run_profile

    require_gpu()
    find_ncu()
    profiles = run_profile(list(variants), size, cublas=not no_cublas)
    if as_json:
        _emit_json([{"label": p.label, "kernel": p.kernel, **p.metrics} for p in profiles])
        return
    from .render.gpu_tables import profile_table

    profile_table(profiles, size)


@cli.command()
@click.option("--size", default=4096, show_default=True, help="M=N=K.")
@click.option("--profile", "with_profile", is_flag=True, help="Also Nsight Compute counters per step.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def ladder(size: int, with_profile: bool, as_json: bool) -> None:
    """Doc 003 §7.1 step by step: naive → +GROUP_SIZE_M=8 → +num_stages=4 → +modulo → opt → autotuned,
    each step's fact changes beside its measured speedup."""
    from .gpu.bench import require_gpu
    from .gpu.tuning import ladder as run_ladder

    require_gpu()
    if with_profile:
        from .gpu.profile import find_ncu

        find_ncu()
    data = run_ladder(size, with_profile=with_profile)
    if as_json:
        _emit_json(data)
        return
    from .render.gpu_tables import ladder_table

    ladder_table(data)


@cli.command()
@click.argument("variant")
@click.option("--size", default=4096, show_default=True, help="M=N=K.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def autotune(variant: str, size: int, as_json: bool) -> None:
    """Time every autotune config of VARIANT on this GPU; the winner is saved and can be inspected
    anywhere with `--config best` (e.g. `ttinspect dump opt --config best`)."""
    from .gpu.bench import require_gpu
    from .gpu.tuning import autotune as run_autotune

    require_gpu()
    data = run_autotune(variant, size)
    if as_json:
        _emit_json(data)
        return
    from .render.gpu_tables import autotune_table

    autotune_table(data)


def main() -> None:
    try:
        cli(prog_name="ttinspect")
    except BrokenPipeError:  # `ttinspect dump ... | head`: the reader left; not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)


if __name__ == "__main__":
    main()

"""The GPU side: each command needs a CUDA GPU and says so in one line without one."""

from __future__ import annotations

import click

from ttinspect.errors import UsageError
from ttinspect.cli.app import cli
from ttinspect.cli.common import emit_json
from ttinspect.gpu.presence import refuse_without_gpu


MAX_SIZE = 65536  # M=N=K: a 65536^3 fp16 matmul already needs 24 GiB for its three matrices
SIZE = click.IntRange(1, MAX_SIZE)


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(x) for x in text.split(",")]
    except ValueError:
        raise UsageError(f"--sizes takes comma-separated integers, got {text!r}") from None
    if not sizes or min(sizes) <= 0 or max(sizes) > MAX_SIZE:
        raise UsageError(f"--sizes takes integers from 1 to {MAX_SIZE}, got {text!r}")
    return sizes


def _captured(variants: tuple[str, ...], command: str) -> bool:
    """Whether VARIANTS are captured kernels (all of them), not shipped matmul variants (none of them)."""
    # loaded when the command runs: kept off every other command's start-up
    from ttinspect.refs.captured import is_capture_ref

    captured = [v for v in variants if is_capture_ref(v)]
    if captured and len(captured) != len(variants):
        other = next(v for v in variants if not is_capture_ref(v))
        raise UsageError(f"{command} times either matmul variants or captured kernels (FILE.ttcap:KERNEL), not both "
                         f"in one run: {other!r} is not a capture reference")
    return bool(captured)


def _matmul_only(ctx: click.Context, names: tuple[str, ...], command: str) -> None:
    """Options that size a matmul mean nothing to a captured launch (its shapes are the captured ones)."""
    from click.core import ParameterSource

    for name in names:
        if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE:
            option = "--" + name.replace("_path", "").replace("_", "-")
            raise UsageError(f"{command}: {option} sizes a matmul variant; a captured kernel replays with the "
                             "captured shapes, strides and grid")


BENCH_HELP = """\b
Examples:
  ttinspect bench opt naive --sizes 4096
  ttinspect bench step.ttcap:fused_moe_kernel step.ttcap:fused_moe_kernel:num_stages=4"""


@cli.command(epilog=BENCH_HELP)
@click.argument("variants", nargs=-1, required=True)
@click.option("--sizes", default="1024,2048,4096,8192", show_default=True, help="M=N=K values.")
@click.option("--dtype", default="fp16", show_default=True, type=click.Choice(["fp16", "bf16"]), help="fp16 or bf16.")
@click.option("--rounds", default=3, show_default=True, type=click.IntRange(1, 1000),
              help="cuBLAS and the variants timed in turn, median.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), help="Write a matplotlib plot here.")
@click.option("--force", is_flag=True, help="Overwrite the --plot file if it exists.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--source", "source", type=click.Choice(["captured", "current", "both"]), default=None,
              help="A captured kernel whose file changed since the run: replay the text the run compiled, the "
                   "file now, or both side by side (a fix measured).")
@click.pass_context
def bench(ctx: click.Context, variants: tuple[str, ...], sizes: str, dtype: str, rounds: int,
          plot_path: str | None, force: bool, as_json: bool, source: str | None) -> None:
    """TFLOP/s of matmul VARIANTS on this GPU beside cuBLAS (median of triton.testing.do_bench); or the time of
    captured kernels (FILE.ttcap:KERNEL[#N][:KEY=VALUE,...]), each launch replayed with fresh tensors of the
    captured shapes, beside the first and checked against it."""
    if _captured(variants, "bench"):
        _matmul_only(ctx, ("sizes", "dtype", "plot_path"), "bench")
        # loaded when the command runs: kept off every other command's start-up
        from ttinspect.gpu.replay import bench_captured

        replayed = bench_captured(variants, rounds, source)
        if as_json:
            emit_json(replayed.as_dict())
            return
        # loaded when the command runs: kept off every other command's start-up
        from ttinspect.render.gpu_tables import replay_table

        replay_table(replayed)
        return
    # the variants' names and the plot's path, checked before the GPU: loaded only by this command
    from ttinspect.files.outputs import IMAGE_SUFFIXES, check_output
    from ttinspect.refs.reference import parse_ref

    if source is not None:
        raise UsageError("--source chooses a captured kernel's file (FILE.ttcap:KERNEL); matmul variants have one")
    sizes_list = _sizes(sizes)  # bad values are refused before anything looks for a GPU
    refs = [parse_ref(v).resolved for v in variants]
    out = check_output(plot_path, force=force, option="--plot", suffixes=IMAGE_SUFFIXES) \
        if plot_path is not None else None
    refuse_without_gpu()  # then the GPU, before torch and the timing machinery are imported
    # the timing machinery (it imports torch and triton): only once a GPU may be there
    from ttinspect.gpu.bench import bench as run_bench, plot, require_gpu

    require_gpu()
    result = run_bench(refs, sizes_list, dtype, rounds)
    if out is not None:
        plot(result, out, force)
    if as_json:
        emit_json(result.as_dict())
        return
    # loaded when the command runs: kept off every other command's start-up
    from ttinspect.render.gpu_tables import bench_table

    bench_table(result)


@cli.command()
@click.argument("variants", nargs=-1, required=True)
@click.option("--size", default=4096, show_default=True, type=SIZE, help="M=N=K.")
@click.option("--no-cublas", is_flag=True, help="Do not profile torch.matmul beside them.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--source", "source", type=click.Choice(["captured", "current"]), default=None,
              help="A captured kernel whose file changed since the run: the text the run compiled, or the file now.")
@click.pass_context
def profile(ctx: click.Context, variants: tuple[str, ...], size: int, no_cublas: bool, as_json: bool,
            source: str | None) -> None:
    """One launch of each variant under Nsight Compute: duration, L2 hit rate, DRAM bytes, tensor pipe,
    achieved occupancy. A captured kernel (FILE.ttcap:KERNEL[#N][:KEY=VALUE,...]) is its captured launch,
    replayed."""
    captured = _captured(variants, "profile")
    if captured:
        _matmul_only(ctx, ("size",), "profile")
        # loaded when the command runs: kept off every other command's start-up
        from ttinspect.gpu.replay import plans

        plans(variants, source)  # what a capture lacks for a replay is said before anything looks for a GPU
    elif source is not None:
        raise UsageError("--source chooses a captured kernel's file (FILE.ttcap:KERNEL); matmul variants have one")
    refuse_without_gpu()
    # torch's check and Nsight Compute's wrapper: only once a GPU may be there
    from ttinspect.gpu.bench import require_gpu
    from ttinspect.gpu.profile import find_ncu, profile as run_profile

    require_gpu()
    find_ncu()
    profiles = run_profile(list(variants), size, cublas=not (no_cublas or captured), source=source)
    if as_json:
        emit_json([{"label": p.label, "kernel": p.kernel, **p.metrics} for p in profiles])
        return
    # loaded when the command runs: kept off every other command's start-up
    from ttinspect.render.gpu_tables import profile_table

    profile_table(profiles, None if captured else size)


@cli.command()
@click.option("--size", default=4096, show_default=True, type=SIZE, help="M=N=K.")
@click.option("--profile", "with_profile", is_flag=True, help="Also Nsight Compute counters per step.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def ladder(size: int, with_profile: bool, as_json: bool) -> None:
    """Doc 003 §7.1 step by step: naive → +GROUP_SIZE_M=8 → +num_stages=4 → +modulo → opt → autotuned,
    each step's fact changes beside its measured speedup."""
    refuse_without_gpu()
    # torch's check and the steps' compiles and facts: only once a GPU may be there
    from ttinspect.gpu.bench import require_gpu
    from ttinspect.gpu.tuning import ladder as run_ladder

    require_gpu()
    if with_profile:
        # loaded when the command runs: kept off every other command's start-up
        from ttinspect.gpu.profile import find_ncu

        find_ncu()
    data = run_ladder(size, with_profile=with_profile)
    if as_json:
        emit_json(data)
        return
    # loaded when the command runs: kept off every other command's start-up
    from ttinspect.render.gpu_tables import ladder_table

    ladder_table(data)


@cli.command()
@click.argument("variant")
@click.option("--size", default=4096, show_default=True, type=SIZE, help="M=N=K.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def autotune(variant: str, size: int, as_json: bool) -> None:
    """Time every autotune config of VARIANT on this GPU; the winner is saved and can be inspected
    anywhere with `--config best` (e.g. `ttinspect dump opt --config best`)."""
    refuse_without_gpu()
    # torch's check and the configs' compiles: only once a GPU may be there
    from ttinspect.gpu.bench import require_gpu
    from ttinspect.gpu.tuning import autotune as run_autotune

    require_gpu()
    data = run_autotune(variant, size)
    if as_json:
        emit_json(data)
        return
    # loaded when the command runs: kept off every other command's start-up
    from ttinspect.render.gpu_tables import autotune_table

    autotune_table(data)



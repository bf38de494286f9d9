"""`ttinspect sweep`: a kernel's config space compiled in parallel (logic in ttinspect/sweep/)."""

from __future__ import annotations

import sys

import click

from ttinspect.errors import UsageError
from ttinspect.files.terminal_text import shown
from ttinspect.cli.app import cli
from ttinspect.cli.common import (REF_HELP, VALUE, args_options, config_option, emit_json, options_from,
                                  settings_option, source_option)
from ttinspect.cli.device_options import arch_of_device, device_option, device_profile_option
from ttinspect.cli.device_options import device_profile as read_device_profile

SWEEP_HELP = REF_HELP + """

\b
Examples:
  ttinspect sweep opt --grid BLOCK_SIZE_N=32..256:x2 --grid num_stages=2..6 --grid num_warps=4,8 --arch sm_80,sm_90
  ttinspect sweep opt --grid config=all --arch sm_90 --where "spills == 0 and fits" --autotune-configs
  ttinspect sweep my.py:matmul --signature "..." --grid BLOCK_M=64,128 --plot sweep.png
  ttinspect sweep opt --grid ... --executor ray --ray-address ray://head:10001
  ttinspect sweep opt --size 4096 --grid config=all --arch sm_90 --sort time --top 8 --autotune-configs \
      --launch-grid "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)"

\b
Exit status:
  0    every point ran; some may have failed (the table says why)
  1-6  every point failed: the exit code their failures share (3: Triton rejected every one;
       2: bad input such as a --set value), else 1
  2    bad input, refused before anything compiles (a --grid key, an --arch target, --where, a
       malformed or unreachable --ray-address) or once the rows exist (a --columns, --sort or
       --plot-fact name no row has)
  130, 143, 129  Ctrl-C, SIGTERM, SIGHUP: the workers are ended, the points that finished printed"""


@cli.command("sweep", epilog=SWEEP_HELP)
@click.argument("ref", metavar="REF")
@click.option("--grid", "grid", multiple=True, metavar="KEY=VALUES",
              help="An axis (repeatable): KEY=32,64,128 (a list), KEY=2..6 (every integer, both ends), "
                   "KEY=32..256:x2 (doubling), KEY=A..B:+S (step); config=all or config=1..17 sweeps the "
                   "kernel's @triton.autotune configs.")
@click.option("--arch", default=None, metavar="A,B,...", type=VALUE,
              help="Targets, comma-separated (sm_80,sm_90); each point is compiled for each.")
@settings_option
@args_options
@config_option
@source_option
@click.option("--where", "where", default=None, metavar="EXPR",
              help='Keep the points whose facts satisfy EXPR: "spills == 0 and occupancy >= 25" '
                   "(== != < <= > >=, and/or/not, parentheses; occupancy is a percentage).")
@click.option("--sort", "sort", default=None, metavar="FACT", help="Sort by a fact or axis; -FACT descending.")
@click.option("--columns", default=None, metavar="F,G,...",
              help="Facts to show (default: registers, spills, shared, fits, occupancy and its limit, "
                   "pipeline depth, tensor-core path, loop tensor-core ops).")
@click.option("--top", "top", default=None, type=click.IntRange(1), metavar="N",
              help="Keep the first N rows, after --where and --sort (--sort time --top 8: the 8 predicted fastest).")
@click.option("--launch-grid", "launch_grid", default=None, metavar="EXPR",
              help='The launch grid for the `time` column (the predicted time, ms): "cdiv(M, BLOCK_M) * '
                   'cdiv(N, BLOCK_N)" over the launch\'s names.')
@click.option("--size", "size", default=None, type=int, metavar="N",
              help="A shipped variant's M = N = K (its other sizes stay).")
@device_option
@device_profile_option
@click.option("--json", "as_json", is_flag=True, help="Every row with every fact, as JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="The table as CSV.")
@click.option("--autotune-configs", "autotune_configs", is_flag=True,
              help="Print the points that compiled, fit and pass --where as triton.Config(...) lines.")
@click.option("--plot", default=None, metavar="FILE.png", help="Also draw a heatmap (needs matplotlib).")
@click.option("--force", is_flag=True, help="Overwrite the --plot file if it exists.")
@click.option("--plot-axes", default=None, metavar="X,Y", help="The heatmap's two axes (default: the first two).")
@click.option("--plot-fact", default="registers", show_default=True, metavar="FACT", help="The heatmap's value.")
@click.option("-j", "--jobs", type=click.IntRange(1, 1024), default=None,
              help="Parallel compiles (default: the CPU count; with ray: the local Ray's CPUs).")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: a process pool here; ray: Ray tasks (a local Ray, or RAY_ADDRESS / --ray-address).")
@click.option("--ray-address", default=None, metavar="ADDR", type=VALUE,
              help="An existing Ray cluster: ray://host:10001, host:6379, auto or local (default: $RAY_ADDRESS, "
                   "else a local Ray); a malformed or unreachable one is refused (exit 2).")
def sweep_command(ref: str, grid: tuple[str, ...], arch: str | None, settings: tuple[str, ...], args: tuple[str, ...],
                  signature: str | None, config: str | None, where: str | None, sort: str | None, columns: str | None,
                  top: int | None, launch_grid: str | None, size: int | None, device: str | None, device_profile,
                  as_json: bool, as_csv: bool, autotune_configs: bool, plot: str | None, plot_axes: str | None,
                  plot_fact: str, force: bool, jobs: int | None, executor: str, ray_address: str | None) -> None:
    """Compile REF at every point of a grid of constexprs and options × targets, in parallel, one row of
    facts per point; filter with --where, export the survivors as autotune configs."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.sweep.output import autotune_configs as config_lines
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.sweep.output import known_names, refuse_unknown, sort_rows, to_csv, to_json, values
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.sweep.run import plan, run_sweep
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.sweep.task import DEFAULT_COLUMNS
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.sweep.where import Where

    if sum((as_json, as_csv, autotune_configs)) > 1:
        raise UsageError("--json, --csv and --autotune-configs are alternatives: give one")
    if not grid and not arch:
        raise UsageError("sweep needs at least one --grid KEY=VALUES (or several --arch targets)")
    if config is not None and any(g.partition("=")[0].strip() == "config" for g in grid):
        raise UsageError("--config and --grid config=... both pick the autotune config: give one")
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.sweep.executors import check_executor

    check_executor(executor, ray_address)
    plot_path = None
    pair = None
    if plot is not None:  # the picture's path and axes, before anything compiles (links, FIFOs, devices refused)
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.files.outputs import IMAGE_SUFFIXES, check_output

        plot_path = check_output(plot, force=force, option="--plot", suffixes=IMAGE_SUFFIXES)
        if plot_axes:
            names = [a.strip() for a in plot_axes.split(",")]
            if len(names) != 2 or not all(names):
                raise UsageError("--plot-axes takes two axes: X,Y")
            pair = (names[0], names[1])
    filt = Where(where) if where else None  # a bad expression is refused before anything compiles
    device_profile = read_device_profile(device_profile)  # checked once, before anything compiles
    if size is not None:
        settings = (*settings, f"M={size}", f"N={size}", f"K={size}")
    timed = _wants_time(sort, columns, filt, launch_grid, device, device_profile)
    arch = arch_of_device(arch, device, device_profile)
    grid_of = None
    if timed:
        # loaded when the command runs: the model, only for a sweep that asks for predicted times
        from ttinspect.perf.devices import find_device
        from ttinspect.perf.grid_text import grid_from_text

        if device is not None:
            find_device(device)  # a misspelt name is refused before anything compiles
        grid_of = grid_from_text(launch_grid) if launch_grid else None
    shown_columns = tuple(c.strip() for c in columns.split(",") if c.strip()) if columns else DEFAULT_COLUMNS
    if timed and not columns:  # the predicted time first: what the sweep was asked for
        shown_columns = ("time", "time_bound", *shown_columns)
    parsed = options_from(None, settings, args, signature, config)
    options = {"settings": dict(parsed.settings), "args": dict(parsed.args), "signature": parsed.signature,
               "config": parsed.config, "source": parsed.source}
    axes, points = plan(ref, grid, arch, options)
    if plot_path is not None and pair is None and len(axes) + (len({a for _, a in points}) > 1) < 2:
        raise UsageError("--plot needs two axes: a --grid with two keys, or one key and several --arch targets")
    result = run_sweep(ref, axes, points, options, executor=executor, jobs=jobs, ray_address=ray_address)
    rows = result.rows
    if timed:
        # loaded when the command runs: the model, only for a sweep that asks for predicted times
        from ttinspect.perf.sweep_times import add_predicted_times

        figures = add_predicted_times(ref, rows, options, device=device, grid=grid_of, device_profile=device_profile)
        where_on = ", ".join(sorted({str(row["predicted_on"]) for row in rows if row.get("predicted_on")}))
        result.notes.append(f"time: the predicted ms of one launch on {where_on or f'no device ({figures} figures)'}")
    if not result.interrupted:  # names are checked against the rows; a stopped sweep prints what it has
        if columns:
            refuse_unknown("--columns", shown_columns, rows, "column")
        if sort:
            refuse_unknown("--sort", [sort.lstrip("-+")], rows)
        if plot:
            refuse_unknown("--plot-fact", [plot_fact], rows, "fact")
        if filt is not None and any(not row.get("error") for row in rows):
            filt.check_names(known_names(rows))
    if filt is not None:
        rows = [row for row in rows if filt(values(row))]
    if sort:
        rows = sort_rows(rows, sort)
    if top is not None:
        rows = rows[:top]
    if as_json:
        click.echo(to_json(result, rows))
    elif as_csv:
        click.echo(to_csv(result, rows, shown_columns), nl=False)
    elif autotune_configs:
        click.echo(config_lines(rows), nl=False)
    else:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.sweep.view import sweep_table

        sweep_table(result, rows, shown_columns)
    if plot is not None:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.sweep.view import heatmap

        click.echo(heatmap(result, rows, str(plot_path), pair, plot_fact, force), err=True)
    if result.interrupted:  # 128 + the signal (errors.interrupted_exit_code), as app.py's stop line says
        click.echo(f"ttinspect: {result.stop_reason}: {len(result.rows)} of {result.total} points finished", err=True)
        sys.exit(result.exit_code)
    if result.exit_code:  # every point failed: one line, and the code their failures share
        kinds = ", ".join(sorted({str(row.get("error_kind")) for row in result.rows}))
        every = "the only point" if len(result.rows) == 1 else f"all {len(result.rows)} points"
        click.echo(f"ttinspect: error: {every} failed ({kinds}); the first: {shown(result.rows[0]['error'])}",
                   err=True)
        sys.exit(result.exit_code)


def _wants_time(sort, columns, filt, launch_grid, device, device_profile) -> bool:
    """Whether the sweep predicts each point's time: a name of the prediction's columns asked for, or an
    option only a prediction reads."""
    names = {(sort or "").lstrip("-+"), *(c.strip() for c in (columns or "").split(","))}
    names |= set(filt.names) if filt is not None else set()
    return bool(names & {"time", "time_bound"}) or any(x is not None for x in (launch_grid, device, device_profile))


__all__ = ["sweep_command", "emit_json"]

"""`ttinspect predict REF`: a launch's time on a named GPU, predicted from the compiled kernel (docs/predict.md)."""

from __future__ import annotations

import click

from ttinspect.cli.app import cli
from ttinspect.cli.common import emit_json, options_from, ref_options
from ttinspect.cli.device_options import arch_of_device, device_option, device_profile_option
from ttinspect.cli.device_options import device_profile as read_device_profile
from ttinspect.errors import UsageError

PREDICT_HELP = """\b
Examples:
  ttinspect predict opt --arch sm_90 --size 4096 --launch-grid "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)"
  ttinspect predict attn --arch sm_90 --device h200 --launch-grid "(N_CTX // BLOCK_M, 32)"
  ttinspect predict add --arch sm_90 --launch-grid "cdiv(n_elems, BLOCK_SIZE)" --json
  ttinspect predict step.ttcap
  ttinspect predict step.ttcap:matmul#2 --device h200 --device-profile h200.json

\b
Exit status:
  0    predicted (or the prediction says why it cannot be made)
  2    bad input: an unknown device, a grid expression that names what the launch lacks"""


@cli.command("predict", epilog=PREDICT_HELP)
@click.argument("ref", metavar="REF")
@ref_options
@device_option
@device_profile_option
@click.option("--size", "size", default=None, type=int, metavar="N",
              help="A shipped variant's M = N = K (its other sizes stay).")
@click.option("--launch-grid", "launch_grid", default=None, metavar="EXPR",
              help='The grid over the launch\'s names: "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)" or "(a, b)".')
@click.option("--json", "as_json", is_flag=True, help="The prediction as JSON.")
def predict_command(ref, arch, settings, args, signature, config, device, device_profile, size, launch_grid,
                    as_json) -> None:
    """Predict the time of one launch of REF on a GPU: TFLOP/s, GB/s, the term that bounds it and where the
    time goes, from the compiled code's facts and the device's datasheet. REF a capture (step.ttcap, or
    step.ttcap:KERNEL[#N]): each recorded launch, the run's kernels by predicted time."""
    # loaded when the command runs: kept off start-up (the reference grammar)
    from ttinspect.refs.kinds import kind_of

    device_profile = read_device_profile(device_profile)  # checked once, before anything compiles

    if kind_of(ref) == "capture":
        _predict_capture(ref, arch, settings, args, signature, config, device, device_profile, size,
                         launch_grid, as_json)
        return
    # loaded when the command runs: kept off start-up and `--help` (the resolver and the model with them)
    from ttinspect.kernel.arguments import parse_arg_items
    from ttinspect.kernel.overrides import parse_settings
    from ttinspect.perf.grid_text import grid_from_text
    from ttinspect.perf.predict import predict
    from ttinspect.refs.resolver import resolve_one
    from ttinspect.report.collect import report_from_build

    if size is not None:
        settings = (*settings, f"M={size}", f"N={size}", f"K={size}")
    arch = arch_of_device(arch, device, device_profile)
    grid = grid_from_text(launch_grid) if launch_grid else None
    # compiled as `report` compiles it (its --config, --device-props, --source): the facts the model reads
    report = report_from_build(resolve_one(ref, options_from(arch, settings, args, signature, config)))
    p = predict(ref, arch, device, args=parse_arg_items(args) if args else None,
                config=parse_settings(list(settings)) or None, grid=grid, signature=signature, report=report,
                device_profile=device_profile)
    if as_json:
        emit_json(p.as_dict())
        return
    click.echo(render_prediction(ref, p))


def _predict_capture(ref, arch, settings, args, signature, config, device, device_profile, size, launch_grid,
                     as_json) -> None:
    """A capture's launches as recorded: their grids, arguments and configs are the run's, not options."""
    given = [name for name, value in (("--launch-grid", launch_grid), ("--size", size), ("--set", settings),
                                      ("--arg", args), ("--signature", signature), ("--config", config),
                                      ("--arch", arch)) if value]
    if given:
        raise UsageError(f"{ref}: a capture's launches are predicted as the run made them (their grids, "
                         f"arguments, configs and target): {', '.join(given)} does not apply")
    # loaded when the command runs: the capture reader and the model
    from ttinspect.perf.capture_profile import profile_capture
    from ttinspect.render.prediction_views import capture_times_text

    source = click.get_current_context().meta.get("ttinspect.source")
    found = profile_capture(ref, device, device_profile=device_profile, source=source)
    data = found.as_dict()
    if as_json:
        emit_json(data)
        return
    click.echo(capture_times_text(data))


def render_prediction(ref: str, p) -> str:
    if p.time_ms is None:
        verdict = "cannot run" if not p.runs else "no prediction"
        return f"{ref} on {p.device}: {verdict}: {p.reason}"
    lines = [f"{ref} on {p.device}: {p.time_ms:.4f} ms, bound by {p.bound}"
             + (f", {p.tflops:.1f} TFLOP/s" if p.tflops else "") + (f", {p.gbps:.0f} GB/s DRAM" if p.gbps else "")]
    lines.append("where the time goes:")
    for name, ms in p.breakdown.items():
        lines.append(f"  {name:45} {ms:9.4f} ms  {100 * ms / p.time_ms:5.1f} %")
    if p.hidden:
        lines.append(f"under {p.bound}:")
        for name, ms in sorted(p.hidden.items(), key=lambda kv: -kv[1]):
            lines.append(f"  {name:45} {ms:9.4f} ms")
    d = p.details
    lines.append(f"programs {d.get('programs')}, {d.get('ctas_per_sm')} CTAs/SM, {d.get('waves')} waves, "
                 f"pipeline depth {d.get('pipeline_depth')}, tensor cores: {d.get('tensor_core_path')}")
    lines.append(f"figures: {d.get('figures', 'datasheet')}")
    lines.append("assumes: " + "; ".join(p.assumptions))
    return "\n".join(lines)

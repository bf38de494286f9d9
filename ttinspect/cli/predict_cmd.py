"""`ttinspect predict REF`: a launch's time on a named GPU, predicted from the compiled kernel (docs/predict.md)."""

from __future__ import annotations

import click

from ttinspect.cli.app import cli
from ttinspect.cli.common import emit_json, options_from, ref_options

PREDICT_HELP = """\b
Examples:
  ttinspect predict opt --arch sm_90 --size 4096 --launch-grid "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)"
  ttinspect predict attn --arch sm_90 --device h200 --launch-grid "(N_CTX // BLOCK_M, 32)"
  ttinspect predict add --arch sm_90 --launch-grid "cdiv(n_elems, BLOCK_SIZE)" --json

\b
Exit status:
  0    predicted (or the prediction says why it cannot be made)
  2    bad input: an unknown device, a grid expression that names what the launch lacks"""


@cli.command("predict", epilog=PREDICT_HELP)
@click.argument("ref", metavar="REF")
@ref_options
@click.option("--device", "device", default=None, metavar="NAME",
              help="The GPU: H100 SXM, H100 PCIe, H200, H20, A100 SXM, A100 PCIe, L40S, RTX 4090, B200, MI300X, "
                   "MI325X, MI355X (default: the target's usual one, sm_90 -> H100 SXM).")
@click.option("--size", "size", default=None, type=int, metavar="N",
              help="A shipped variant's M = N = K (its other sizes stay).")
@click.option("--launch-grid", "launch_grid", default=None, metavar="EXPR",
              help='The grid over the launch\'s names: "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)" or "(a, b)".')
@click.option("--json", "as_json", is_flag=True, help="The prediction as JSON.")
def predict_command(ref, arch, settings, args, signature, config, device, size, launch_grid, as_json) -> None:
    """Predict the time of one launch of REF on a GPU: TFLOP/s, GB/s, the term that bounds it and where the
    time goes, from the compiled code's facts and the device's datasheet."""
    # loaded when the command runs: kept off start-up and `--help` (the resolver and the model with them)
    from ttinspect.kernel.arguments import parse_arg_items
    from ttinspect.kernel.overrides import parse_settings
    from ttinspect.perf.grid_text import grid_from_text
    from ttinspect.perf.predict import predict
    from ttinspect.refs.resolver import resolve_one
    from ttinspect.report.collect import report_from_build

    if size is not None:
        settings = (*settings, f"M={size}", f"N={size}", f"K={size}")
    grid = grid_from_text(launch_grid) if launch_grid else None
    # compiled as `report` compiles it (its --config, --device-props, --source): the facts the model reads
    report = report_from_build(resolve_one(ref, options_from(arch, settings, args, signature, config)))
    p = predict(ref, arch, device, args=parse_arg_items(args) if args else None,
                config=parse_settings(list(settings)) or None, grid=grid, signature=signature, report=report)
    if as_json:
        emit_json(p.as_dict())
        return
    click.echo(render_prediction(ref, p))


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
    lines.append("assumes: " + "; ".join(p.assumptions))
    return "\n".join(lines)

"""`ttinspect calibrate -o h100.json`: measure the GPU at hand once, for `--device-profile` (docs/predict.md)."""

from __future__ import annotations

import json

import click

from ttinspect.cli.app import cli

CALIBRATE_HELP = """\b
Examples:
  ttinspect calibrate -o h100.json
  ttinspect predict opt --arch sm_90 --size 4096 --device-profile h100.json --launch-grid "cdiv(M, 128)"
  ttinspect calibrate -o h100.json --device "H100 SXM" --force

\b
Exit status:
  0    measured and written
  2    bad input: the output exists (without --force), an unknown --device
  5    no GPU here (one line; nothing is measured)"""


@cli.command("calibrate", epilog=CALIBRATE_HELP)
@click.option("-o", "--output", "out", required=True, metavar="FILE.json",
              help="Where to write the device profile (atomically; its folder must exist).")
@click.option("--device", "device", default=None, metavar="NAME",
              help="The datasheet row this GPU is (default: read from its name, e.g. NVIDIA H100 80GB HBM3 -> "
                   "H100 SXM).")
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
def calibrate_command(out: str, device: str | None, force: bool) -> None:
    """Run microbenchmarks on this machine's GPU — tensor-core TFLOP/s per dtype (a Triton matmul at 8192³),
    FP32 FMA, DRAM and L2 bandwidth, a launch's cost — and write them as a device profile, which
    `--device-profile FILE` of predict, sweep and diff then uses in place of the datasheet's figures."""
    # loaded when the command runs: kept off start-up (the output checks, the GPU probe, the model)
    from ttinspect.files.outputs import check_output, write_atomically
    from ttinspect.gpu.presence import refuse_without_gpu
    from ttinspect.perf.devices import find_device
    from ttinspect.perf.profile import read_profile

    path = check_output(out, force=force, option="--output")  # before measuring: a refused path costs nothing
    if device is not None:
        find_device(device)
    refuse_without_gpu()  # one line, exit 5, before torch and Triton are imported
    from ttinspect.perf.calibrate import calibrate  # torch and the benchmark kernels: only on a GPU

    profile = calibrate(device, say=lambda line: click.echo(line, err=True))
    write_atomically(path, json.dumps(profile.as_dict(), indent=1) + "\n", force=force)
    written = read_profile(path)  # read back as every --device-profile reads it: what was written is one
    click.echo(f"wrote {out}: {written.label}, for the {written.device} row")

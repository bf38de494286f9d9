"""`--device NAME` and `--device-profile FILE`, as predict, diff and sweep take them; diff's use of them.

The profile is read and checked once, here (`device_profile`), as each command starts (perf/profile.py): it
gets the typed DeviceProfile, or the one line saying what is wrong with the file, before anything compiles.
(Not in click's callback: parsing a command line — `--help`'s examples, completion — must not read files.)
"""

from __future__ import annotations

from typing import Any, Callable

import click

from ttinspect.errors import UsageError

DEVICE_HELP = ("The GPU: H100 SXM, H100 PCIe, H200, H20, A100 SXM, A100 PCIe, L40S, RTX 4090, B200, MI300X, "
               "MI325X, MI355X (default: the target's usual one, sm_90 -> H100 SXM; names are read loosely).")
PROFILE_HELP = ("A device profile `ttinspect calibrate -o FILE` measured on the GPU: its figures in place of "
                "the datasheet's (outputs say which were used).")


def device_profile(path: str | None) -> Any:
    """The `--device-profile` file as a typed DeviceProfile (None without one)."""
    if path is None:
        return None
    # loaded when the option is given: the model's modules stay off every other command's start-up
    from ttinspect.perf.profile import read_profile

    return read_profile(path)


def arch_of_device(arch: str | None, device: str | None, profile: Any = None) -> str | None:
    """--arch as given; without it, the target of the GPU --device names (`--device h200` compiles for sm_90,
    as a prediction on it needs), else of the GPU a --device-profile measured: a misspelt device is refused
    here, in one line, before anything compiles."""
    if arch is not None or device is None and profile is None:
        return arch
    # loaded when a device is named: the device table stays off the start-up path
    from ttinspect.perf.devices import target_of

    return target_of(arch, device, profile)


def device_option(f: Callable) -> Callable:
    return click.option("--device", "device", default=None, metavar="NAME", help=DEVICE_HELP)(f)


def device_profile_option(f: Callable) -> Callable:
    return click.option("--device-profile", "device_profile", default=None, metavar="FILE", help=PROFILE_HELP)(f)


def diff_prediction_options(f: Callable) -> Callable:
    """diff's: --device, --device-profile, --size, --launch-grid (once for both sides, or A's then B's)."""
    f = click.option("--launch-grid", "launch_grids", multiple=True, metavar="EXPR",
                     help="The launch grid for the predicted times: once for both sides, or twice for A's "
                          "then B's.")(f)
    f = click.option("--size", "size", default=None, type=int, metavar="N",
                     help="Predict both at this size: a shipped variant's M = N = K (doc 003 §5).")(f)
    return device_option(device_profile_option(f))


def wants_prediction(fmt: str, ci_format: bool, device, profile_path, size, launch_grids) -> tuple[bool, Any]:
    """Whether diff predicts both sides (doc 003 §5): any of its prediction options given (a CI format,
    which lists changed facts only, refuses them); and the device profile, read."""
    predicting = any(x is not None for x in (device, profile_path, size)) or bool(launch_grids)
    if ci_format and predicting:
        raise UsageError(f"--format {fmt} lists the changed facts; --device, --device-profile, --size and "
                         "--launch-grid go with text or json")
    return predicting, device_profile(profile_path)


def diff_times(refs, reports, device, device_profile, launch_grids, args, signature=None) -> dict:
    # loaded when diff predicts: the model stays off the plain diff's warm path
    from ttinspect.perf.diff_times import diff_times_of_texts

    return diff_times_of_texts(refs, reports, device, device_profile, launch_grids, args, signature)


def echo_diff_times(predicted: dict) -> None:
    # loaded when diff predicts: as diff_times
    from ttinspect.render.prediction_views import diff_times_text

    click.echo()
    click.echo(diff_times_text(predicted))

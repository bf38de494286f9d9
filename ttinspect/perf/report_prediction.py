"""One launch's prediction from a made report: the launch's values and grid, the device (a profile's figures
laid over its row), and the model over the build's facts, TTIR and PTX, kept beside the build (memo.py).
predict() and rank() (predict.py), the sweep's `time` column, a capture's and a diff's times all come here."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ttinspect.api import Report
from ttinspect.errors import UsageError
from ttinspect.kernel.argument_types import Pointer, Scalar, TensorDesc
from ttinspect.kernel.arguments import signature_values
from ttinspect.perf.devices import Device, device_for
from ttinspect.perf.memo import is_remembered, prediction_key, remembered
from ttinspect.perf.mma_operands import dot_operand_factors
from ttinspect.perf.model import Prediction, not_predicted, predict_from_facts
from ttinspect.perf.profile import DeviceProfile, measured_device, with_profile
from ttinspect.perf.unroll import ptx_loop_global_loads
from ttinspect.refs.kinds import kind_of
from ttinspect.refs.reference import parse_ref

Grid = tuple[int, ...] | Callable[[Mapping[str, Any]], tuple[int, ...]] | None


def launch_values(kernel: Any, args: Mapping[str, Any] | None, report, signature: str | None = None) -> dict[str, Any]:
    """The launch's values by name: the given args' ints (a variant's own when none are given), the values a
    `--signature` gives (`"*fp16, 4096, ..."`: the same as `--arg M=4096`), and the compiled config's
    constexprs and options."""
    values: dict[str, Any] = {}
    resolved = _variant_as_built(kernel, report)
    if args is None and resolved is not None:
        args = resolved.variant.make_args(resolved.problem, resolved.config)
    for name, value in (args or {}).items():
        if isinstance(value, (Pointer, Scalar, TensorDesc)) or (isinstance(value, str) and not _int_text(value)):
            continue
        values[name] = int(value) if isinstance(value, str) else value
    if signature:
        for name, value in signature_values(signature, _parameter_names(report)).items():
            values.setdefault(name, value)
    values.update({k: v for k, v in report.config.items()})
    return values


def _parameter_names(report) -> list[str]:
    """The kernel's parameters in order, as its build recorded its signature (constexprs included)."""
    built = report.build.metadata.get("ttinspect", {}) if report.build is not None else {}
    recorded = built.get("signature")
    return list(recorded) if isinstance(recorded, Mapping) else []


def _variant_as_built(kernel: Any, report):
    """A shipped variant with the problem and config this build was made for — read from the build's label
    (`attn:Z=1,N_CTX=2048`: `--size` / `--set M=...` are there, not in the reference's name; the cached entry's
    own record may be another problem's, as builds whose arguments agree share it) — or None for any other
    kind of kernel."""
    if not (isinstance(kernel, str) and kind_of(kernel) == "variant"):
        return None
    label = report.build.label if report.build is not None else kernel
    text = label if isinstance(label, str) and kind_of(label) == "variant" else kernel
    return parse_ref(text.partition("@")[0], dict(report.config)).resolved


def _int_text(text: str) -> bool:
    try:
        int(text, 0)
        return True
    except ValueError:
        return False


def resolve_grid(grid: Grid, meta: Mapping[str, Any]) -> tuple[int, ...] | None:
    """A tuple, or Triton's grid callable called with the meta dict (args and constexprs by name)."""
    if grid is None:
        return None
    value = grid(dict(meta)) if callable(grid) else grid
    if isinstance(value, int):
        value = (value,)
    try:
        return tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise UsageError(f"grid must give 1-3 ints, got {value!r}") from None


def launch_grid(grid: Grid, kernel: Any, values: Mapping[str, Any], report, dev: Device) -> tuple[int, ...] | None:
    """The grid given; else a shipped variant's own (its launcher's, kept as data: Variant.grid) over the
    launch's values, its problem and the device's SMs; else None (the prediction says a grid is needed)."""
    resolved = _variant_as_built(kernel, report) if grid is None else None
    if resolved is not None:
        own = resolved.variant.grid
        if own is not None:
            return resolve_grid(own({**resolved.problem, **resolved.config, **values}, dev.sms), values)
    return resolve_grid(grid, values)


def device_for_profile(arch: str, name: str | None, profile: DeviceProfile | None) -> Device:
    """The device a prediction is for: `name` (or the profile's, or the target's default), with the
    profile's measured figures over its datasheet row."""
    row = device_for(arch, name if name is not None or profile is None else profile.device)
    return measured_device(row, profile) if profile is not None else row


def predict_report(report: Report, dev: Device, values: Mapping[str, Any], grid: tuple[int, ...] | None,
                   profile: DeviceProfile | None = None) -> Prediction:
    """The model over a report's facts, its build's TTIR and PTX, kept beside the build (memo.py)."""
    build = report.build
    ttir = _text_if_made(build.artifacts, "ttir") if build is not None else None
    if build is None or ttir is None:
        return with_profile(not_predicted(dev, "the build has no TTIR"), profile)
    facts = {f.key: f.value for f in report.facts}
    ptx = _text_if_made(build.artifacts, "ptx")  # NVIDIA's only: an AMD build has AMDGCN instead
    ttgir = _text_if_made(build.artifacts, "ttgir")
    key = _key(report, dev, values, grid)

    def compute() -> Prediction:
        if ptx is not None:  # the PTX main loop's loads: with the SASS's, how far ptxas unrolled it (unroll.py)
            facts["ptx_loop_global_loads"] = ptx_loop_global_loads(ptx)
        if ttgir is not None:  # the MMA layout's warp split: how often the dots re-read their operands
            facts["dot_operand_factors"] = dot_operand_factors(ttgir)
        return predict_from_facts(facts, ttir, dev, values, grid)

    return with_profile(remembered(build.artifacts.directory, key, compute), profile)


def _key(report: Report, dev: Device, values: Mapping[str, Any], grid: tuple[int, ...] | None) -> str:
    """What a prediction is kept under: the facts, the TTIR's and PTX's text (parsed only when new), the
    device, the launch."""
    assert report.build is not None  # a prediction is asked of a built report only
    artifacts = report.build.artifacts
    facts = {f.key: f.value for f in report.facts}
    texts = (_text_if_made(artifacts, stage) or "" for stage in ("ttir", "ptx", "ttgir"))
    return prediction_key(facts, "".join(texts), dev, values, grid)


def _text_if_made(artifacts, stage: str) -> str | None:
    """A stage's text, or None where this build has no such stage (PTX on an AMD target)."""
    return artifacts.text(stage) if artifacts.has(stage) else None


def is_kept(report: Report, dev: Device, values: Mapping[str, Any], grid: tuple[int, ...] | None) -> bool:
    """Whether predict_report would read this prediction from the cache (rank: what is left to compute)."""
    if report.build is None:
        return True  # nothing to compute: predict_report says why at once
    return is_remembered(report.build.artifacts.directory, _key(report, dev, values, grid))

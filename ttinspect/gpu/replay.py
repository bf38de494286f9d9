"""`ttinspect bench` / `profile` of captured kernels: any kernel a run launched, timed again on this GPU.

Each reference (`step.ttcap:fused_moe_kernel`, `step.ttcap:fused_moe_kernel:num_stages=4`) is a replay plan
(capture/replay_plan.py): its most frequent captured launch, with fresh tensors of the captured shapes,
strides and dtypes over random data, the captured scalars, constexprs, options and grid, and the reference's
own changes on top. Every reference gets the same data (one seed). The first reference is the baseline:

- each is launched once from that data and its tensors compared with the baseline's afterwards (max |Δ|,
  NaN where only one side is NaN) — a change meant to be faster must not compute something else;
- then they are timed in alternation over ROUNDS rounds (`triton.testing.do_bench` median each), and each
  keeps the median of its rounds, as `bench` does for matmuls (gpu/bench.py says why).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from typing import Any, Sequence

from ttinspect.capture.replay_plan import ReplayPlan
from ttinspect.errors import UsageError
from ttinspect.gpu.bench import require_gpu, time_ms
from ttinspect.refs.captured import parse_capture_ref, replay_plan
from ttinspect.refs.captured_source import SOURCE_CHOICES, kernel_file


@dataclass(frozen=True)
class ReplayTiming:
    label: str
    kernel: str
    grid: tuple[int, ...]
    site: str
    ms: float
    ratio_to_first: float  # the first reference's time over this one's: > 1 is faster
    max_abs_diff: float | None  # vs the first reference's tensors after one launch; None for the first


@dataclass(frozen=True)
class ReplayBench:
    device: str
    triton_version: str
    torch_version: str
    rows: tuple[ReplayTiming, ...]
    rounds: int

    def as_dict(self) -> dict[str, Any]:
        return {"device": self.device, "triton": self.triton_version, "torch": self.torch_version,
                "settings": {"rounds": self.rounds, "statistic": "median of rounds of do_bench medians",
                             "data": "fresh random tensors of the captured shapes, one seed for all"},
                "replays": [{"label": r.label, "kernel": r.kernel, "grid": list(r.grid), "site": r.site,
                             "ms": r.ms, "ratio_to_first": r.ratio_to_first, "max_abs_diff": r.max_abs_diff}
                            for r in self.rows]}


def plans(texts: Sequence[str], source: str | None = None) -> list[ReplayPlan]:
    """Each captured reference as a replay plan (no GPU needed: a capture lacking what a replay needs is
    refused before anything looks for one). The kernel's file is the one the run compiled; if it changed since,
    `source` chooses (refs/captured_source.py): `captured` replays the text the run compiled, `current` the
    file as it is now, `both` each reference twice, captured then current — a fix made in the file, measured
    on the launch the program made. Without a choice a changed file is refused in one line naming both."""
    if source is not None and source not in (*SOURCE_CHOICES, "both"):
        raise UsageError(f"--source takes captured, current or both, got {source!r}")
    out = []
    for text in texts:
        ref = parse_capture_ref(text)
        if ref.arch is not None:
            raise UsageError(f"{text}: a replay runs on this GPU; @{ref.arch} names a target to compile for "
                             "(report/diff take it)")
        capture, record, replay = replay_plan(text)
        where = str(ref.path.with_name(replay.label))
        for choice in (("captured", "current") if source == "both" else (source,)):
            path = kernel_file(capture, record, where, choice)
            named = f"{replay.label} ({choice})" if source == "both" else replay.label
            out.append(replace(replay, file=str(path), label=named))
    return out


class _Launch:
    """One plan made ready on the GPU: the kernel loaded, its arguments made from the shared seed."""

    def __init__(self, replay: ReplayPlan, device: str = "cuda") -> None:
        from ttinspect.capture.replay_runtime import arguments, keyword_value, load_kernel  # imports triton

        self.replay, self.device = replay, device
        try:
            self.kernel = load_kernel(replay.file, replay.module, replay.name, replay.script)
        except LookupError as error:
            raise UsageError(f"{replay.label}: {error}") from None
        self.args = arguments(replay.args, device)
        self.keywords = {k: keyword_value(v) for k, v in replay.keywords.items()}

    def __call__(self) -> None:
        self.kernel[self.replay.grid](**self.args, **self.keywords)

    def result(self) -> list[Any]:
        """One launch from the seed's data: copies of its tensors afterwards (the arguments are then made
        afresh, so that what is timed starts from the same data)."""
        from ttinspect.capture.replay_runtime import arguments, synchronize  # imports torch

        self()
        synchronize(self.args)
        out = [value.clone() for value in self.args.values() if hasattr(value, "stride")]
        self.args = arguments(self.replay.args, self.device)
        return out


def compared(launches: list[_Launch], finals: list[list[Any]], i: int) -> float | None:
    """max |Δ| of launch i's tensors against the first's; None for the first, and for a replay of other
    arguments (another kernel, other shapes), which computes something else by design."""
    if i == 0 or launches[i].replay.args != launches[0].replay.args:
        return None
    return max_abs_diff(finals[i], finals[0])


def max_abs_diff(mine: list[Any], first: list[Any]) -> float:
    """Largest |a - b| over every tensor argument; NaN where only one side is NaN (equal NaNs count 0)."""
    import torch

    worst = 0.0
    for a, b in zip(mine, first, strict=True):
        a, b = a.double(), b.double()
        both_nan = torch.isnan(a) & torch.isnan(b)
        if (torch.isnan(a) ^ torch.isnan(b)).any():
            return float("nan")
        diff = (a - b).abs().masked_fill(both_nan, 0.0)
        diff = diff.masked_fill(torch.isinf(a) & (a == b), 0.0)
        worst = max(worst, float(diff.max()) if diff.numel() else 0.0)
    return worst


def bench_captured(texts: Sequence[str], rounds: int = 3, source: str | None = None) -> ReplayBench:
    replays = plans(texts, source)
    torch = require_gpu()
    import triton

    launches = [_Launch(replay) for replay in replays]
    finals = [launch.result() for launch in launches]
    runs: list[list[float]] = [[] for _ in launches]
    for _ in range(max(1, rounds)):
        for i, launch in enumerate(launches):
            runs[i].append(time_ms(launch))
    medians = [statistics.median(r) for r in runs]
    rows = tuple(ReplayTiming(launch.replay.label, launch.replay.name, launch.replay.grid, launch.replay.site, ms,
                              medians[0] / ms, compared(launches, finals, i))
                 for i, (launch, ms) in enumerate(zip(launches, medians, strict=True)))
    return ReplayBench(torch.cuda.get_device_name(), triton.__version__, torch.__version__, rows, rounds)


def replay_once(text: str, source: str | None = None) -> None:
    """One launch of a captured kernel, the kernel compiled and its tensors made before it (for ncu)."""
    launch = _Launch(plans([text], source)[0])
    launch.result()  # compiles, and launches once: ncu's --launch-count 1 takes this one

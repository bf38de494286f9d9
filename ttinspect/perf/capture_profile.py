"""A captured run's kernels by predicted time — an offline profile (`ttinspect predict step.ttcap`).

Each recorded compile is built as `report step.ttcap:KERNEL#N` builds it, and each of its launch sites is
predicted with what the capture recorded there: the grid, the integer arguments, the compile's constexprs
and options. A site's launches multiply its time. A capture keeps per site the count and the first distinct
grids and argument summaries, and which grid went with which summary (`pairs`), not how many launches each had: a
site with one grid and one argument summary is exact; a site with several is a range — every launch at the
cheapest recorded pair, to every launch at the dearest; a capture written before pairs were recorded with
several of both is unknown (which grid went with which arguments is not recorded). Nothing is guessed: a
kernel whose sites have no grid, or whose prediction cannot be made, is listed with the reason and counts in no
total.

A compile the autotuner only benchmarked (never launched by the program) is predicted at the grid its config
launched with while benchmarked (the autotune record's `grids`), with the tuning's launch arguments: a site
of no launches — it adds nothing to the run's time, and its per-launch time ranks it among the tuning's
configs. A capture written before those grids were recorded leaves it unknown, with the reason.

Where the capture was made on a GPU and the autotuner timed the compile's config, its measured time is
kept beside the prediction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ttinspect.api import Report
from ttinspect.capture.format import Launches
from ttinspect.errors import TTInspectError
from ttinspect.perf.devices import Device
from ttinspect.perf.model import Prediction
from ttinspect.perf.report_prediction import device_for_profile, predict_report
from ttinspect.perf.profile import DeviceProfile, with_profile
from ttinspect.refs.capture_listing import bench_grid, config_index, tunings_by_kernel
from ttinspect.refs.captured import kernel_name, load, named, parse_capture_ref, pick, say_warnings, target_arch
from ttinspect.refs.release_suffix import with_release
from ttinspect.refs.resolver import RefOptions, resolve_one
from ttinspect.report.collect import report_from_build


@dataclass(frozen=True)
class SiteTime:
    """One launch site of one compile: its launches and their predicted time, low to high (equal when
    exact), or the reason there is none."""
    site: str
    count: int
    low_ms: float | None  # the site's total over its launches
    high_ms: float | None
    per_launch: tuple[Prediction, ...]  # one per distinct (grid, arguments) predicted
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"site": self.site, "count": self.count, "low_ms": self.low_ms, "high_ms": self.high_ms,
                "reason": self.reason, "launches": [p.as_dict() for p in self.per_launch]}


@dataclass(frozen=True)
class KernelTime:
    """One compile of the capture: its reference, config, launches and total predicted time."""
    ref: str  # FILE.ttcap:NAME#N
    name: str
    config: Mapping[str, Any]
    launches: int
    sites: tuple[SiteTime, ...]
    measured_ms: float | None  # the autotuner's measured time of this config (a capture made on a GPU)
    bound: str | None
    reason: str | None = None  # why nothing of it is predicted

    @property
    def low_ms(self) -> float | None:
        known = [s.low_ms for s in self.sites if s.low_ms is not None]
        return sum(known) if known else None

    @property
    def high_ms(self) -> float | None:
        known = [s.high_ms for s in self.sites if s.high_ms is not None]
        return sum(known) if known else None

    @property
    def partly_unknown(self) -> bool:
        return any(s.low_ms is None for s in self.sites)

    def as_dict(self) -> dict[str, Any]:
        return {"ref": self.ref, "kernel": self.name, "config": dict(self.config), "launches": self.launches,
                "low_ms": self.low_ms, "high_ms": self.high_ms, "measured_ms_per_launch": self.measured_ms,
                "bound": self.bound, "reason": self.reason, "sites": [s.as_dict() for s in self.sites]}


@dataclass(frozen=True)
class CaptureProfile:
    path: str
    device: str
    figures: str  # "datasheet" or the measured profile's label
    kernels: tuple[KernelTime, ...]  # slowest first; those without a time last
    notes: tuple[str, ...] = field(default=())

    @property
    def low_ms(self) -> float | None:
        """The run's predicted time at the least; None (unknown) when no kernel has a time — never 0."""
        known = [k.low_ms for k in self.kernels if k.low_ms is not None]
        return sum(known) if known else None

    @property
    def high_ms(self) -> float | None:
        known = [k.high_ms for k in self.kernels if k.high_ms is not None]
        return sum(known) if known else None

    def share(self, kernel: KernelTime) -> tuple[float, float] | None:
        """The kernel's share of the total, as a range when any time is one (its least against the others'
        most, its most against the others' least)."""
        if kernel.low_ms is None or kernel.high_ms is None or self.low_ms is None or self.high_ms is None:
            return None
        others_low, others_high = self.low_ms - kernel.low_ms, self.high_ms - kernel.high_ms
        low = kernel.low_ms / (kernel.low_ms + others_high) if kernel.low_ms + others_high else 0.0
        high = kernel.high_ms / (kernel.high_ms + others_low) if kernel.high_ms + others_low else 0.0
        return low, high

    def as_dict(self) -> dict[str, Any]:
        return {"capture": self.path, "device": self.device, "figures": self.figures,
                "total_low_ms": self.low_ms, "total_high_ms": self.high_ms, "notes": list(self.notes),
                "kernels": [{**k.as_dict(), "share": self.share(k)} for k in self.kernels]}


def profile_capture(text: str, device: str | None = None, *, device_profile: DeviceProfile | None = None,
                    source: str | None = None) -> CaptureProfile:
    """`text`: FILE.ttcap (every compile), FILE.ttcap:NAME (its compiles) or FILE.ttcap:NAME#N (one)."""
    ref = parse_capture_ref(text)
    capture = load(ref.path, quiet=True)
    if ref.number is not None:
        records: tuple = (pick(capture, ref, text),)
    else:
        records = capture.compiles if ref.name is None else named(capture, ref.name)
    say_warnings(capture)
    measured = _measured_by_compile(capture)
    tunings = tunings_by_kernel(capture)
    notes = [note for note in (capture.header.made(),) if note]
    kernels = []
    used: Device | None = None
    for record in records:
        name = kernel_name(capture, record)
        shown = with_release(f"{ref.path.name}:{name}", ref.release)
        # the whole capture's @triton=X is each compile's, as `report FILE.ttcap:NAME#N@triton=X` takes it
        kernel_ref = with_release(f"{ref.path}:{record.name}#{record.number}", ref.release)
        config = {**record.constexprs, **{k: v for k, v in record.options.items() if v is not None}}
        try:
            report = report_from_build(resolve_one(kernel_ref, RefOptions(source=source, arch=ref.arch)))
            used = device_for_profile(report.target, device, device_profile)
        except TTInspectError as error:
            used = used or _captured_device(ref.arch or target_arch(record.target), device, device_profile)
            said = f"{type(error).__name__}: {str(error).splitlines()[0]}"  # its first line (then its source)
            kernels.append(KernelTime(shown, name, config, capture.launch_count(record.id),
                                      (), measured.get(record.id), None, said))
            continue
        launched = tuple(capture.launches_of(record.id)) or _benchmarked(capture, record, tunings)
        sites = tuple(_site_time(report, used, launch, config, device_profile) for launch in launched)
        bound = next((p.bound for s in sites for p in s.per_launch if p.bound), None)
        reason = None if sites else "no launch recorded (compiled, never launched, or launched by another process)"
        kernels.append(KernelTime(shown, name, config, capture.launch_count(record.id),
                                  sites, measured.get(record.id), bound, reason))
    kernels.sort(key=lambda k: (k.high_ms is None, -(k.high_ms or 0.0)))
    figures = with_profile(_empty(used), device_profile).details["figures"] if used else "datasheet"
    return CaptureProfile(str(ref.path), used.name if used else (device or "?"), figures, tuple(kernels),
                          tuple(notes))


def _captured_device(arch: str | None, name: str | None, profile: DeviceProfile | None) -> Device | None:
    """The device a capture's prediction is for when its compile failed: the one its captured target names (or
    the one asked for); None when the capture names no target ttinspect knows."""
    if arch is None:
        return None
    try:
        return device_for_profile(arch, name, profile)
    except TTInspectError:
        return None


def _empty(device: Device) -> Prediction:
    return Prediction(None, None, {}, {}, None, None, device.name, ())


def _site_time(report: Report, device: Device, launch, config: Mapping[str, Any],
               profile: DeviceProfile | None) -> SiteTime:
    grids = launch.grids
    arg_sets: Sequence[Mapping[str, Any]] = launch.args or ({},)
    if not grids:
        return SiteTime(launch.site, launch.count, None, None, (), "no grid recorded at this site")
    if len(grids) > 1 and len(arg_sets) > 1:  # each grid with its own arguments, where every one's are known
        pairs = launch.pairs or ()
        if {g for g, _ in pairs} != set(range(len(grids))) or {a for _, a in pairs} != set(range(len(arg_sets))):
            return SiteTime(launch.site, launch.count, None, None, (),
                            f"{len(grids)} grids and {len(arg_sets)} argument sets recorded without which went "
                            f"together{' for every one' if pairs else ''}: not predicted")
        together = [(grids[g], arg_sets[a]) for g, a in pairs]
    else:  # one grid or one argument set: every launch is one of these
        together = [(grid, args) for grid in grids for args in arg_sets]
    predictions = []
    for grid, args in together:
        values = {k: v for k, v in args.items() if isinstance(v, int) and not isinstance(v, bool)}
        values.update(report.config)
        predictions.append(predict_report(report, device, values, tuple(grid), profile))
    times = [p.time_ms for p in predictions]
    if any(t is None for t in times):
        first = next(p for p in predictions if p.time_ms is None)
        return SiteTime(launch.site, launch.count, None, None, tuple(predictions), first.reason)
    known = [t for t in times if t is not None]
    return SiteTime(launch.site, launch.count, launch.count * min(known), launch.count * max(known),
                    tuple(predictions))


def _benchmarked(capture, record, tunings) -> tuple[Launches, ...]:
    """The autotuner's benchmark runs of a compile the program never launched, as sites of no launches: one
    per tuning that recorded its config's grid. Their arguments are the tuning's launch's (the autotuner
    benchmarks each config with them): those recorded at the tuning's key for another compile it made."""
    sites = []
    for tuning in tunings.get(f"id:{record.id}", ()):
        index = config_index(tuning, record)
        grid = bench_grid(tuning, index) if index is not None else None
        if grid is None:
            continue
        shape = {k: v for k, v in tuning.key.items() if isinstance(v, int) and not isinstance(v, bool)}
        args = next((a for c in dict.fromkeys(tuning.compiles) for launch in capture.launches_of(c)
                     for a in launch.args if all(a.get(k, v) == v for k, v in shape.items())), None)
        key = " ".join(f"{k}={v}" for k, v in shape.items())
        sites.append(Launches(record.id, f"autotuner benchmark{f' at {key}' if key else ''} (not a launch of the "
                              "program)", 0, (tuple(grid),), (args if args is not None else shape,), tuning.line))
    return tuple(sites)


def _measured_by_compile(capture) -> dict[str, float]:
    """The autotuner's measured time of each compile it timed (null timings: a capture made without a GPU)."""
    found: dict[str, float] = {}
    for tuning in capture.autotune:
        if not tuning.timings_ms or len(tuning.timings_ms) != len(tuning.compiles):
            continue  # not timed (captured without a GPU), or not one compile per timing
        for compile_id, ms in zip(tuning.compiles, tuning.timings_ms, strict=True):
            if isinstance(ms, (int, float)) and compile_id:
                found.setdefault(compile_id, float(ms))
    return found

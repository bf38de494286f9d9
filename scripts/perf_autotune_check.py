"""The GPU's own autotuner as a held-out check of `ttinspect predict`: every autotuned kernel a capture made on a
GPU timed with ≥ 3 configs (per autotune key: one shape), its configs ranked by the model and compared with
the times Triton itself measured — the same four figures as scripts/perf_accuracy.py (Spearman, the measured
time of the predicted-best config ÷ the best, whether the predicted top 5 hold one within 1.05× of the best,
the median |predicted ÷ measured − 1|) per (kernel, key). Real kernels at real shapes, never fitted on.

    python scripts/perf_autotune_check.py CAPTURE... [--launch-grid KERNEL=EXPR]... [--device NAME]

CAPTURE is a capture file (.ttcap, `ttinspect capture` on a GPU) or what `ttinspect list X.ttcap --json`
printed (a capture's listing, as tests/data/capture_h100/list.json keeps one). Each config's grid is the one
it launched with while the autotuner benchmarked it (the autotune record's `grids`, the listing's "grid"),
else the grid of the run's own launch of it at that key. A capture made before ttinspect recorded benchmark
grids has no grid for a config that was only benchmarked: `--launch-grid KERNEL=EXPR` then gives the kernel's
grid as its call site computes it (the `--launch-grid` grammar over the launch's arguments and the config's
constexprs); without it such a config is listed as not predicted, with that reason, and counts in no figure.
The device is the capture's GPU (`--device` to name one).
"""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from perf_accuracy import device_of, spearman  # noqa: E402  (the same device choice and definitions)

MIN_CONFIGS = 3
TORCH_DTYPES = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64", "int8": "i8",
                "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8", "bool": "i1",
                "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5"}
OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


@dataclass
class Timed:
    """One config the autotuner timed for one key."""
    config: dict[str, Any]
    measured_ms: float
    source: str  # FILE:KERNEL the config compiles from
    arch: str
    args: dict[str, Any] | None  # the launch's arguments (ints, Pointer), None when none was recorded
    grid: tuple[int, ...] | None  # recorded for this config at this key, else None
    predicted_ms: float | None = None
    reason: str | None = None


@dataclass
class Group:
    kernel: str
    key: dict[str, Any]
    timed: list[Timed] = field(default_factory=list)

    @property
    def label(self) -> str:
        shape = " ".join(f"{k}={v}" for k, v in self.key.items() if isinstance(v, int))
        types = sorted({str(v).replace("torch.", "") for k, v in self.key.items() if k.endswith(".dtype")})
        return f"{self.kernel} {shape}{' ' + '/'.join(types) if types else ''}".strip()


def _pointer(value: Any) -> Any:
    from ttinspect.kernel.argument_types import Pointer

    if isinstance(value, dict) and "dtype" in value:
        return Pointer(TORCH_DTYPES.get(str(value["dtype"]).replace("torch.", ""), str(value["dtype"])))
    return value


def _matches(args: dict[str, Any], key: dict[str, Any]) -> bool:
    return all(args.get(k) == v for k, v in key.items() if isinstance(v, int) and k in args)


def groups_of_listing(listing: dict[str, Any]) -> list[Group]:
    """The autotune keys of a `ttinspect list --json` listing, each with its timed configs."""
    found: dict[str, Group] = {}
    arch = ((listing.get("run") or {}).get("device") or {}).get("arch")  # a run that found no GPU: none
    compiles = listing.get("compiles", [])
    for entry in compiles:
        for tuning in entry.get("autotune") or ():
            if not isinstance(tuning.get("ms"), (int, float)):
                continue
            ident = json.dumps([entry["kernel"], entry.get("file"), tuning.get("key")], sort_keys=True)
            group = found.setdefault(ident, Group(entry["kernel"], dict(tuning.get("key") or {})))
            args = _args_for(compiles, entry, group.key)
            grids, arg_sets = entry.get("grids") or [], entry.get("args") or []
            benchmarked = tuning.get("grid")  # the grid the config launched with at this key, where recorded
            grid = tuple(benchmarked) if isinstance(benchmarked, list) and len(benchmarked) == 3 else \
                tuple(grids[0]) if len(grids) == 1 and len(arg_sets) == 1 and _matches(arg_sets[0], group.key) \
                else None
            config = {k: v for k, v in (entry.get("config") or {}).items()
                      if k in OPTIONS or k not in ("ptx_version", "enable_fp_fusion", "debug", "sanitize_overflow")}
            source = f"{entry['file']}:{entry['kernel']}" if Path(entry.get("file") or "").is_file() else \
                _numbered(entry)  # the capture's own compile, named exactly
            group.timed.append(Timed(config, float(tuning["ms"]), source,
                                     entry.get("target") or (f"sm_{arch}" if arch else "sm_90"), args, grid))
    return list(found.values())


def _numbered(entry: dict[str, Any]) -> str:
    """The listing's reference as FILE.ttcap:NAME#N: its ref names a kernel of one compile without the #N."""
    ref, number = entry["ref"], entry.get("number")
    if number is None or "#" in ref.rpartition(":")[2]:
        return ref
    return f"{ref}#{number}"


def _args_for(compiles: list[dict], entry: dict, key: dict[str, Any]) -> dict[str, Any] | None:
    """The launch arguments at this key: the compile's own, else those another compile of the same kernel
    recorded at the same key (the autotuner benchmarks every config with the launch's arguments)."""
    for candidate in [entry] + [c for c in compiles if c["kernel"] == entry["kernel"] and c is not entry]:
        for args in candidate.get("args") or ():
            if _matches(args, key):
                return {k: _pointer(v) for k, v in args.items() if not isinstance(v, float)}
    return None


def groups_of_capture(path: Path) -> list[Group]:
    """The same from a .ttcap: listed as `ttinspect list --json` lists it, then read as a listing."""
    from ttinspect.refs.capture_listing import list_capture

    return groups_of_listing(list_capture(str(path)))


def predict_group(group: Group, device: str, grids: dict[str, str]) -> None:
    from ttinspect.errors import TTInspectError
    from ttinspect.perf.grid_text import grid_from_text
    from ttinspect.api import inspect
    from ttinspect.refs.captured import is_capture_ref
    from ttinspect.perf.predict import predict

    for timed in group.timed:
        if timed.args is None:
            timed.reason = "no launch arguments recorded at this key"
            continue
        grid: Any = timed.grid
        if grid is None and group.kernel in grids:
            grid = grid_from_text(grids[group.kernel])
        if grid is None:
            timed.reason = ("no grid: the config was only benchmarked, and the capture predates benchmark grids "
                            "(give --launch-grid KERNEL=EXPR)")
            continue
        try:
            # the capture's own compile: its arguments and config are the run's, its text the capture's (the
            # run's files were on the GPU machine)
            if is_capture_ref(timed.source):
                p = predict(timed.source, None, device, args=timed.args, grid=grid,
                            report=inspect(timed.source, source="captured"))
            else:
                p = predict(timed.source, timed.arch, device, args=timed.args, config=timed.config, grid=grid)
        except TTInspectError as error:
            timed.reason = f"{type(error).__name__}: {error}"
            continue
        timed.predicted_ms, timed.reason = p.time_ms, p.reason


def figures(group: Group) -> dict[str, Any] | None:
    pairs = [(t.predicted_ms, t.measured_ms) for t in group.timed if t.predicted_ms]
    if len(pairs) < MIN_CONFIGS:
        return None
    preds, meas = [x for x, _ in pairs], [y for _, y in pairs]
    best = min(meas)
    order = sorted(range(len(pairs)), key=preds.__getitem__)
    return {"group": group.label, "points": len(pairs), "spearman": spearman(preds, meas),
            "best_ratio": meas[order[0]] / best, "top5_within_1.05": any(meas[i] <= 1.05 * best for i in order[:5]),
            "median_error": statistics.median(abs(x / y - 1) for x, y in pairs)}


def main(argv: list[str]) -> int:
    from perf_accuracy import table

    if not argv:
        print(__doc__)
        return 2
    grids: dict[str, str] = {}
    device: str | None = None
    paths: list[Path] = []
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--launch-grid" and args:
            name, _, expr = args.pop(0).partition("=")
            grids[name] = expr
        elif arg == "--device" and args:
            device = args.pop(0)
        else:
            paths.append(Path(arg))
    rows, skipped = [], []
    for path in paths:
        if not path.is_file():
            print(f"perf_autotune_check: {path}: no such file", file=sys.stderr)
            return 2
        listing = json.loads(path.read_text()) if path.suffix == ".json" else None
        found = groups_of_listing(listing) if listing is not None else groups_of_capture(path)
        gpu = (listing or {}).get("run", {}).get("device", {}).get("name", "")
        for group in found:
            if len(group.timed) < MIN_CONFIGS:
                continue
            predict_group(group, device or device_of(gpu), grids)
            row = figures(group)
            if row is None:
                skipped.append(f"{group.label}: {next((t.reason for t in group.timed if t.reason), 'too few')}")
            else:
                rows.append(row)
    print(table(sorted(rows, key=lambda r: r["group"])))
    for line in skipped:
        print(f"not predicted: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

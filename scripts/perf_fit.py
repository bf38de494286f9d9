"""The performance model's fitted constants, fitted again: a grid over each FITTED constant of
ttinspect/perf/terms.py and model.py, every combination scored on one dataset's accuracy (docs/predict.md,
"Constants"). Fit on the H100 set only; the H200 set is the held-out check (`--check` scores the constants as
they are in the code on any set).

    python scripts/perf_fit.py tests/data/perf/h100_points.json            # the best combinations, best first
    python scripts/perf_fit.py tests/data/perf/h200_points.json --check    # the code's constants on held-out data

Score: median Spearman + mean Spearman + the share of groups whose predicted-best is within 1.10x of the best
− the median |predicted ÷ measured − 1| (each group's median). Each point's Work is counted once
(scripts/perf_residuals.py), so a combination costs only the model's arithmetic.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from perf_residuals import collect, default_inputs, prepare, repredict, summary  # noqa: E402

GRID = {  # constant -> the values tried (the module that holds it is found by name)
    "LATENCY_CYCLES": (1000, 1300, 1600, 2000, 2500),
    "LAUNCH_US": (3.0, 4.5, 6.0),
    "HBM_ACHIEVABLE": (0.84, 0.88, 0.92),
    "SOFT_MAX_POWER": (4.0, 10.0, 30.0),
}


def score(s: dict) -> float:
    return s["spearman"] + s["mean_spearman"] + s["best_within_1.10"] - s["error"]


def set_constants(values: dict) -> None:
    import ttinspect.perf.model as model
    import ttinspect.perf.terms as terms

    for name, value in values.items():
        setattr(terms if hasattr(terms, name) else model, name, value)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    from perf_accuracy import device_of  # the same device choice as the accuracy table

    dataset = json.loads(Path(argv[0]).read_text())
    device = device_of(dataset["machine"].get("gpu", ""))
    rows = prepare(dataset, collect(dataset, default_inputs()), device)
    if "--check" in argv:
        print(json.dumps(summary(rows)))
        return 0
    results = []
    for combination in itertools.product(*GRID.values()):
        values = dict(zip(GRID, combination, strict=True))
        set_constants(values)
        repredict(rows, device)
        found = summary(rows)
        results.append((score(found), values, found))
    results.sort(key=lambda r: -r[0])
    for total, values, found in results[:10]:
        print(f"{total:.3f}  {values}  {json.dumps({k: round(v, 3) for k, v in found.items()})}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

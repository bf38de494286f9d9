"""How well the model ranks the configs of kernels ttinspect did not write: the corpus's public-library kernels
timed on a GPU by scripts/perf_library_points.py, each group (one kernel at its call site's shape) ranked
offline with `rank()` as a user would, then scored as scripts/perf_accuracy.py scores the dataset
(docs/predict.md, "Public-library kernels"). Needs the corpus libraries (pyproject's `corpus` extra).

    python scripts/perf_library_accuracy.py tests/data/perf/h200_library_points.json          # rank, store, table
    python scripts/perf_library_accuracy.py tests/data/perf/h200_library_points.json --table  # the stored ranks

Each config is given to `rank()` as the GPU ran it: an autotuned kernel's config (after its pruner, as
timed), any other kernel's call site at each num_warps; the call site's own constexprs go with the arguments.
The predictions are written beside the data (NAME_predicted.json: each point's predicted ms, or why none).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "corpus"))
sys.path.insert(0, str(ROOT / "scripts"))

from perf_accuracy import device_of, groups, stored_or_predicted, table  # noqa: E402

TARGET = "sm_90"
OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


def config_of(point: dict) -> dict:
    """The config a point ran, as rank() takes it."""
    config = dict(point["constexprs"])
    config["num_warps"] = point["num_warps"]
    if point.get("num_stages") is not None:
        config["num_stages"] = point["num_stages"]
    return config


def rank_group(entry, points: list[dict], device: str) -> list[dict]:
    from corpus_gpu import grid_function
    from corpus_manifest import api_args, api_config

    from ttinspect import rank

    call_site = {k: v for k, v in api_config(entry, TARGET).items() if k not in OPTIONS}
    configs = [config_of(p) for p in points]
    ranked = rank(entry.module_ref, configs, args={**api_args(entry, TARGET), **call_site},
                  grid=grid_function(entry.grid_for(TARGET)), arch=TARGET, device=device)
    by_config = {id(r.config): r for r in ranked}
    return [{"id": p["id"], "predicted_ms": by_config[id(c)].time_ms, "bound": by_config[id(c)].bound,
             "reason": by_config[id(c)].reason} for p, c in zip(points, configs, strict=True)]


def predict_all(dataset: dict) -> list[dict]:
    from corpus_manifest import load

    device = device_of(dataset["machine"].get("gpu", ""))
    entries = {e.id: e for e in load()}
    by_entry: dict[str, list[dict]] = {}
    for point in dataset["points"]:
        if point.get("ms"):
            by_entry.setdefault(point["entry"], []).append(point)
    rows: list[dict] = []
    for name, points in by_entry.items():
        entry = entries[name]
        for key, value in entry.env_for(TARGET).items():
            os.environ.setdefault(key, value)
        start = time.monotonic()
        try:
            found = rank_group(entry, points, device)
        except Exception as error:  # the group's rows say why
            found = [{"id": p["id"], "predicted_ms": None, "bound": None,
                      "reason": f"{type(error).__name__}: {str(error)[:300]}"} for p in points]
        rows += found
        print(f"{name}: {sum(r['predicted_ms'] is not None for r in found)}/{len(points)} predicted "
              f"({time.monotonic() - start:.0f} s)", file=sys.stderr, flush=True)
    return rows


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    path = Path(argv[0])
    dataset = json.loads(path.read_text())
    predicted = stored_or_predicted(path, dataset, argv, predict_all)
    print(f"{dataset['machine'].get('gpu')} ({device_of(dataset['machine'].get('gpu', ''))}), Triton "
          f"{dataset['machine'].get('triton')}:")
    print(table(groups(dataset, predicted)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

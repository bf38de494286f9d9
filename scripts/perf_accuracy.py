"""How well `ttinspect predict` matches the GPU: every point of a dataset made by scripts/perf_dataset.py
predicted offline, then per (kernel, shape) group the rank correlation and errors (docs/predict.md).

    python scripts/perf_accuracy.py tests/data/perf/h100_points.json            # predict, store, print the table
    python scripts/perf_accuracy.py tests/data/perf/h100_points.json --table    # the table from the stored predictions
    python scripts/perf_accuracy.py tests/data/perf/h100_points.json --against tests/data/perf/h200_points.json
                                                                   # how far the GPUs' own orders agree (no model)

Predicting writes NAME_predicted.json beside the dataset (each point's predicted ms, or why none), so the table
can be printed again — and held by tests/test_predict_accuracy.py — without compiling. Per group: Spearman of
predicted vs measured, the measured time of the predicted-best config ÷ the true best, whether the predicted
top 5 hold a config within 1.05× of the best, and the median |predicted ÷ measured − 1|; then the medians.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEVICE_BY_GPU = (("H200", "H200"), ("H100 PCIe", "H100 PCIe"), ("H100", "H100 SXM"), ("H20", "H20"),
                 ("A100", "A100 SXM"), ("L40S", "L40S"), ("4090", "RTX 4090"), ("B200", "B200"),
                 ("MI300X", "MI300X"), ("MI325X", "MI325X"), ("MI355X", "MI355X"))


MIN_POINTS = 3  # a group with fewer configs predicted and timed has no order to score


def device_of(gpu: str) -> str:
    return next((name for key, name in DEVICE_BY_GPU if key.lower() in gpu.lower()), "H100 SXM")


def predict_all(dataset: dict) -> list[dict]:
    from ttinspect.perf.predict import predict

    machine = dataset["machine"]
    arch, device = machine.get("capability", "sm_90"), device_of(machine.get("gpu", ""))
    rows = []
    for n, p in enumerate(dataset["points"]):
        config = {**p["constexprs"], "num_warps": p["num_warps"], "num_stages": p["num_stages"]}
        try:
            pred = predict(str(ROOT / p["kernel"].rsplit(":", 1)[0]) + ":" + p["kernel"].rsplit(":", 1)[1], arch,
                           device, args=p["args"], config=config, grid=tuple(p["grid"]))
            rows.append({"id": p["id"], "predicted_ms": pred.time_ms, "bound": pred.bound, "reason": pred.reason})
        except Exception as error:  # a point the model cannot take is a row with its reason
            rows.append({"id": p["id"], "predicted_ms": None, "bound": None,
                         "reason": f"{type(error).__name__}: {error}"})
        if n % 50 == 49:
            print(f"{n + 1}/{len(dataset['points'])} predicted", file=sys.stderr, flush=True)
    return rows


def _ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


def spearman(a: list[float], b: list[float]) -> float | None:
    if len(a) < 3:
        return None
    ra, rb = _ranks(a), _ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    var = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return cov / var if var else None


def groups(dataset: dict, predicted: list[dict]) -> list[dict]:
    """One row per (kernel, shape) group over the points both measured and predicted (at least MIN_POINTS)."""
    by_id = {row["id"]: row for row in predicted}
    found: dict[str, list[tuple[float, float]]] = {}
    for p in dataset["points"]:
        pred = by_id.get(p["id"], {}).get("predicted_ms")
        if p.get("ms") and pred:
            found.setdefault(p["group"], []).append((pred, p["ms"]))
    rows = []
    for group, pairs in found.items():
        if len(pairs) < MIN_POINTS:  # nothing to rank (flag-gems' heuristics set num_warps: one config is left)
            continue
        preds, meas = [x for x, _ in pairs], [y for _, y in pairs]
        best = min(meas)
        order = sorted(range(len(pairs)), key=preds.__getitem__)
        rows.append({"group": group, "points": len(pairs), "spearman": spearman(preds, meas),
                     "best_ratio": meas[order[0]] / best,
                     "top5_within_1.05": any(meas[i] <= 1.05 * best for i in order[:5]),
                     "median_error": statistics.median(abs(x / y - 1) for x, y in pairs)})
    return sorted(rows, key=lambda r: r["group"])


def table(rows: list[dict]) -> str:
    """The Markdown table docs/predict.md carries (tests/test_predict_accuracy.py compares the two)."""
    lines = ["| group | points | Spearman | predicted-best ÷ best | top 5 within 1.05× | median \\|pred/meas − 1\\| |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        rho = f"{r['spearman']:.2f}" if r["spearman"] is not None else "—"
        lines.append(f"| {r['group']} | {r['points']} | {rho} | {r['best_ratio']:.2f} | "
                     f"{'yes' if r['top5_within_1.05'] else 'no'} | {100 * r['median_error']:.0f} % |")
    if rows:
        rhos = [r["spearman"] for r in rows if r["spearman"] is not None]
        lines.append(f"| **median** ({len(rows)} groups) | {sum(r['points'] for r in rows)} | "
                     f"{statistics.median(rhos):.2f} | {statistics.median(r['best_ratio'] for r in rows):.2f} "
                     f"({sum(r['best_ratio'] <= 1.10 for r in rows)}/{len(rows)} within 1.10×) | "
                     f"{sum(r['top5_within_1.05'] for r in rows)}/{len(rows)} | "
                     f"{100 * statistics.median(r['median_error'] for r in rows):.0f} % |")
    return "\n".join(lines)


def agreement(dataset: dict, other: dict) -> list[dict]:
    """Per group, the Spearman of one set's measured times against another's for the same points (two GPUs, or
    two runs): how reproducible the configs' order is, the most a model can be expected to rank. A group whose
    configs lie within the timing noise of each other agrees poorly even between two runs of the same GPU."""
    times = {p["id"]: p.get("ms") for p in other["points"]}
    found: dict[str, list[tuple[float, float]]] = {}
    for p in dataset["points"]:
        if p.get("ms") and times.get(p["id"]):
            found.setdefault(p["group"], []).append((p["ms"], times[p["id"]]))
    return [{"group": group, "points": len(pairs), "spearman": spearman([a for a, _ in pairs], [b for _, b in pairs]),
             "spread": max(a for a, _ in pairs) / min(a for a, _ in pairs)}
            for group, pairs in sorted(found.items()) if len(pairs) >= MIN_POINTS]


def agreement_table(rows: list[dict]) -> str:
    lines = ["| group | points | Spearman of the two sets' measured times | slowest ÷ fastest config |",
             "|---|---|---|---|"]
    for r in rows:
        rho = f"{r['spearman']:.2f}" if r["spearman"] is not None else "—"
        lines.append(f"| {r['group']} | {r['points']} | {rho} | {r['spread']:.2f} |")
    return "\n".join(lines)


def predicted_path(dataset_path: Path) -> Path:
    return dataset_path.with_name(dataset_path.stem.replace("_points", "") + "_predicted.json")


def stored_or_predicted(path: Path, dataset: dict, argv: list[str],
                        predict: Callable[[dict], list[dict]]) -> list[dict]:
    """`--table`: the predictions stored beside the dataset; else `predict` them and store them there."""
    out = predicted_path(path)
    if "--table" in argv:
        return json.loads(out.read_text())
    predicted = predict(dataset)
    out.write_text(json.dumps(predicted, indent=1))
    return predicted


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    path = Path(argv[0])
    dataset = json.loads(path.read_text())
    if "--against" in argv:
        other = json.loads(Path(argv[argv.index("--against") + 1]).read_text())
        print(agreement_table(agreement(dataset, other)))
        return 0
    predicted = stored_or_predicted(path, dataset, argv, predict_all)
    print(f"{dataset['machine'].get('gpu')} ({device_of(dataset['machine'].get('gpu', ''))}):")
    print(table(groups(dataset, predicted)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

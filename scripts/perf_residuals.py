"""Where the performance model is wrong, per config: each point of a dataset made by scripts/perf_dataset.py
predicted again from its compiled facts and TTIR, printed beside the GPU's time with every term of the model,
so a group that ranks badly shows which term moves the wrong way (docs/predict.md, "How the model was fixed").

    python scripts/perf_residuals.py tests/data/perf/h100_points.json                 # every group
    python scripts/perf_residuals.py tests/data/perf/h100_points.json softmax row_sum # groups whose name holds a word
    python scripts/perf_residuals.py tests/data/perf/h100_points.json --classes       # median ratio per bound

The compiled inputs of each point (facts, TTIR, launch values, grid) are read once through `inspect` (the
compile cache) and kept in INPUTS_FILE beside the cache (`--inputs PATH` to choose), so changing the model and
re-running costs no compile: only `predict_from_facts` runs again.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

FACT_KEYS = ("blocks_per_sm", "shared_memory", "tensor_core_path", "pipeline_depth", "spill_store_bytes",
             "spill_load_bytes", "threads", "registers", "sass_loop_local_memory", "occupancy_limiter", "num_warps",
             "sass_instructions", "sass_loop_instructions", "warp_specialized", "sass_loop_global_loads",
             "sass_local_memory", "stack")


def default_inputs() -> Path:
    base = os.environ.get("TTINSPECT_CACHE_DIR") or os.path.expanduser("~/.cache/ttinspect")
    return Path(base) / "perf_inputs_v5.json"


def _kernel_path(kernel: str) -> str:
    path, name = kernel.rsplit(":", 1)
    return f"{ROOT / path}:{name}"


def collect(dataset: dict, inputs_path: Path) -> dict[str, dict]:
    """Each point's compiled inputs by (kernel, args, config) key; the ones already kept are not read again."""
    from ttinspect.api import inspect  # the compile path: only when an input is missing
    from ttinspect.errors import TTInspectError
    from ttinspect.perf.predict import launch_values
    from ttinspect.perf.mma_operands import dot_operand_factors
    from ttinspect.perf.unroll import ptx_loop_global_loads

    kept = json.loads(inputs_path.read_text()) if inputs_path.exists() else {}
    arch = dataset["machine"].get("capability", "sm_90")
    added = 0
    for p in dataset["points"]:
        key = input_key(p, arch)
        if key in kept:
            continue
        config = {**p["constexprs"], "num_warps": p["num_warps"], "num_stages": p["num_stages"]}
        try:
            report = inspect(_kernel_path(p["kernel"]), arch, args=p["args"], config=config)
        except TTInspectError as error:
            kept[key] = {"error": f"{type(error).__name__}: {error}"}
            continue
        facts = {f.key: f.value for f in report.facts if f.key in FACT_KEYS}
        facts = {k: list(v) if isinstance(v, tuple) else v for k, v in facts.items()}
        ptx = report.build.artifacts.text("ptx")
        facts["ptx_loop_global_loads"] = ptx_loop_global_loads(ptx) if ptx else None
        ttgir = report.build.artifacts.text("ttgir")
        facts["dot_operand_factors"] = [list(f) for f in dot_operand_factors(ttgir) or ()] if ttgir else None
        kept[key] = {"facts": facts, "ttir": report.build.artifacts.text("ttir"),
                     "values": launch_values(_kernel_path(p["kernel"]), p["args"], report)}
        added += 1
    if added:
        inputs_path.parent.mkdir(parents=True, exist_ok=True)
        inputs_path.write_text(json.dumps(kept))
    return kept


def input_key(p: dict, arch: str) -> str:
    return json.dumps([arch, p["kernel"], p["args"], p["constexprs"], p["num_warps"], p["num_stages"]],
                      sort_keys=True)


def prepare(dataset: dict, kept: dict[str, dict], device_name: str) -> list[dict]:
    """Each measured and compiled point with its Work counted once (the model's terms are recomputed from it)."""
    from ttinspect.perf.devices import find_device
    from ttinspect.perf.ir_program import parse_ir_program
    from ttinspect.perf.model import predict_from_facts
    from ttinspect.perf.work import count_work

    device = find_device(device_name)
    arch = dataset["machine"].get("capability", "sm_90")
    rows = []
    for p in dataset["points"]:
        given = kept.get(input_key(p, arch), {})
        if not p.get("ms") or "ttir" not in given:
            continue
        facts, grid = given["facts"], tuple(p["grid"])
        first = predict_from_facts(facts, given["ttir"], device, given["values"], grid)
        work = None
        if first.time_ms is not None:
            wave = device.sms * facts["blocks_per_sm"]
            work = count_work(parse_ir_program(given["ttir"]), dict(given["values"]), grid, wave, device.l2_bytes)
        rows.append({"point": p, "facts": facts, "work": work, "prediction": first})
    return rows


def repredict(rows: list[dict], device_name: str) -> None:
    """The model's combination again over each row's stored Work (after a constant changed)."""
    from ttinspect.perf.devices import find_device
    from ttinspect.perf.model import _combine

    device = find_device(device_name)
    for r in rows:
        if r["work"] is not None:
            r["prediction"] = _combine(r["facts"], device, r["work"], r["facts"]["blocks_per_sm"])


def summary(rows: list[dict]) -> dict:
    """The accuracy table's medians over these rows (scripts/perf_accuracy.py's definitions)."""
    from perf_accuracy import spearman

    found: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        if r["prediction"].time_ms:
            found.setdefault(r["point"]["group"], []).append((r["prediction"].time_ms, r["point"]["ms"]))
    rhos, best, errors = [], [], []
    for pairs in found.values():
        preds, meas = [x for x, _ in pairs], [y for _, y in pairs]
        rho = spearman(preds, meas)
        if rho is not None:
            rhos.append(rho)
        best.append(meas[min(range(len(pairs)), key=preds.__getitem__)] / min(meas))
        errors.append(statistics.median(abs(x / y - 1) for x, y in pairs))
    return {"spearman": statistics.median(rhos), "mean_spearman": statistics.fmean(rhos),
            "best_within_1.10": sum(b <= 1.10 for b in best) / len(best), "error": statistics.median(errors)}


def _config_text(p: dict) -> str:
    short = {k.replace("BLOCK_SIZE_", "B").replace("BLOCK_", "B").replace("GROUP_SIZE_", "G"): v
             for k, v in p["constexprs"].items() if k != "num_stages"}
    return " ".join(f"{k}={v}" for k, v in short.items()) + f" w{p['num_warps']} s{p['num_stages']}"


def print_group(group: str, rows: list[dict]) -> None:
    rows = sorted(rows, key=lambda r: r["point"]["ms"])
    best = rows[0]["point"]["ms"]
    print(f"\n## {group}  (best measured {best * 1e3:.1f} us)")
    for r in rows:
        p, pred = r["point"], r["prediction"]
        if pred.time_ms is None:
            print(f"  {_config_text(p):44s} meas {p['ms'] * 1e3:8.1f}  pred None: {pred.reason}")
            continue
        terms = {**pred.hidden, **{k: v for k, v in pred.breakdown.items() if k == pred.bound}}
        shown = " ".join(f"{name.split()[0][:6]}={v * 1e3:.1f}" for name, v in sorted(terms.items()))
        extra = f"{pred.breakdown.get('launch', 0) * 1e3:.1f}+" + "+".join(
            f"{v * 1e3:.1f}" for k, v in pred.breakdown.items() if k not in ("launch", pred.bound))
        print(f"  {_config_text(p):44s} meas {p['ms'] * 1e3:8.1f}  pred {pred.time_ms * 1e3:8.1f} "
              f"({pred.time_ms / p['ms']:4.2f}x) [{pred.bound[:10]:10s}] fixed {extra}  {shown}  "
              f"occ={r['facts'].get('blocks_per_sm')} regs={r['facts'].get('registers')}")


def by_class(rows: list[dict]) -> None:
    """The median predicted ÷ measured per bound: a class of kernel the model is biased on shows here."""
    found: dict[str, list[float]] = {}
    for r in rows:
        if r["prediction"].time_ms is not None:
            found.setdefault(r["prediction"].bound, []).append(r["prediction"].time_ms / r["point"]["ms"])
    for bound, ratios in sorted(found.items()):
        print(f"{bound:28s} {len(ratios):4d} points  pred/meas median {statistics.median(ratios):.2f}  "
              f"quartiles {statistics.quantiles(ratios, n=4)[0]:.2f}..{statistics.quantiles(ratios, n=4)[2]:.2f}")


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    from perf_accuracy import device_of  # the same device choice as the accuracy table

    path = Path(argv[0])
    args = argv[1:]
    inputs = default_inputs()
    if "--inputs" in args:
        at = args.index("--inputs")
        inputs = Path(args[at + 1])
        del args[at:at + 2]
    dataset = json.loads(path.read_text())
    kept = collect(dataset, inputs)
    device = device_of(dataset["machine"].get("gpu", ""))
    rows = prepare(dataset, kept, device)
    if "--summary" in args:
        print(summary(rows))
        return 0
    if "--classes" in args:
        by_class(rows)
        return 0
    words = [a for a in args if not a.startswith("--")]
    groups: dict[str, list[dict]] = {}
    for r in rows:
        if not words or any(w in r["point"]["group"] for w in words):
            groups.setdefault(r["point"]["group"], []).append(r)
    for group in sorted(groups):
        print_group(group, groups[group])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

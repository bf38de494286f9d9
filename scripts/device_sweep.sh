#!/usr/bin/env bash
# Run on a GPU machine (H100/H200, 16 cores; Triton 3.6, torch 2.11): issue 11's two measurements.
#   bash scripts/device_sweep.sh [OUT_DIR]
# (a) the full sweep of opt's 17 tutorial autotune configs (Triton tutorial's 16 + doc 003 §5.4) x 6 targets
#     with -j 16, cold, timed (no GPU used: every target is compiled offline);
# (b) pruning is sound: autotune opt at 4096 over the 17 configs, then over the configs the sweep keeps
#     for this GPU's target (not spilling, fitting), the way @triton.autotune does it (each config compiled by
#     the JIT on first launch, then timed with triton.testing.do_bench); both winners, their times, and the
#     autotune wall time saved. Results under $OUT. GPU time: ~2-4 minutes.
set -uo pipefail
OUT=${1:-${OUT:-out}}
mkdir -p "$OUT"
export TTINSPECT_CACHE_DIR=$(mktemp -d) TRITON_CACHE_DIR=$(mktemp -d) TRITON_DEFAULT_FP_FUSION=1 PYTHONUNBUFFERED=1
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -n 2
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nproc; uptime
  python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)"; } | tee "$OUT/device.txt"

# (a) 17 configs x 6 targets = 102 points, cold, 16 workers.
ARCHS=sm_80,sm_86,sm_89,sm_90,sm_100,sm_120
start=$(date +%s.%N)
ttinspect sweep opt --grid config=1..17 --arch "$ARCHS" -j 16 --json > "$OUT/sweep_full.json"
end=$(date +%s.%N)
python3 - "$OUT" "$start" "$end" <<'PY' | tee "$OUT/sweep_timing.txt"
import json, sys
out, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
data = json.load(open(f"{out}/sweep_full.json"))
print(f"cold sweep of opt: {data['points']} points (17 configs x 6 targets), -j 16: {end - start:.1f} s wall "
      f"(sweep itself {data['seconds']:.1f} s; {data['compiled']} compiled, {data['failed']} failed)")
PY
start=$(date +%s.%N)
ttinspect sweep opt --grid config=1..17 --arch "$ARCHS" -j 16 --json > /dev/null
end=$(date +%s.%N)
python3 -c "print(f'the same sweep warm: {$end - $start:.2f} s')" | tee -a "$OUT/sweep_timing.txt"
# The table for this GPU's target, and what the sweep keeps there.
NATIVE=$(python3 -c "import torch; m, n = torch.cuda.get_device_capability(); print(f'sm_{m}{n}')")
ttinspect sweep opt --grid config=1..17 --arch "$NATIVE" -j 16 > "$OUT/sweep_native_table.txt"
ttinspect sweep opt --grid config=1..17 --arch "$NATIVE" -j 16 --where "not (spills > 0) and fits" --json \
    > "$OUT/sweep_native_kept.json"

# (b) autotune over all 17 configs vs over the kept ones.
python3 - "$OUT" <<'PY' | tee "$OUT/pruning.txt"
import json, os, sys, time
import torch
import triton
from ttinspect.gpu.bench import run_variant
from ttinspect.kernel.catalog import get_variant
from ttinspect.kernel.overrides import resolve

out = sys.argv[1]
kept = json.load(open(f"{out}/sweep_native_kept.json"))
kept_numbers = sorted(r["point"]["config"] for r in kept["rows"])
variant = get_variant("opt")
size = 4096
gen = torch.Generator(device="cuda").manual_seed(0)
a = torch.randn(size, size, device="cuda", dtype=torch.float16, generator=gen)
b = torch.randn(size, size, device="cuda", dtype=torch.float16, generator=gen)
results = []
for number in range(1, 18):
    config = variant.autotune_configs[number - 1]
    ref = resolve(variant, {**config, "M": size, "N": size, "K": size})
    start = time.perf_counter()  # what autotune pays for this config: the JIT compile and the timing
    try:
        timing = run_variant(ref, a, b)
        ms, error = timing.ms, None
    except Exception as exc:  # out of resources on this GPU: autotune pays the failed compile
        ms, error = None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
    torch.cuda.synchronize()
    results.append({"config": number, "settings": dict(config), "ms": ms, "error": error,
                    "autotune_s": time.perf_counter() - start, "kept": number in kept_numbers})
    print(f"config {number:2d} {'kept  ' if number in kept_numbers else 'pruned'} "
          f"{'%.4f ms' % ms if ms else error:>14}  autotune cost {results[-1]['autotune_s']:.2f} s", flush=True)
ran = [r for r in results if r["ms"]]
full = min(ran, key=lambda r: r["ms"])
pruned_pool = [r for r in ran if r["kept"]]
pruned = min(pruned_pool, key=lambda r: r["ms"]) if pruned_pool else None
full_s = sum(r["autotune_s"] for r in results)
pruned_s = sum(r["autotune_s"] for r in results if r["kept"])
summary = {"gpu": torch.cuda.get_device_name(), "triton": triton.__version__, "size": size,
           "kept": kept_numbers, "pruned": [r["config"] for r in results if not r["kept"]],
           "full_winner": {"config": full["config"], "ms": full["ms"]},
           "pruned_winner": pruned and {"config": pruned["config"], "ms": pruned["ms"]},
           "same_winner": bool(pruned and pruned["config"] == full["config"]),
           "autotune_full_s": full_s, "autotune_pruned_s": pruned_s, "autotune_saved_s": full_s - pruned_s,
           "results": results}
json.dump(summary, open(f"{out}/pruning.json", "w"), indent=2)
print(f"full autotune (17 configs): winner config {full['config']} {full['ms']:.4f} ms; {full_s:.1f} s")
if pruned:
    print(f"pruned autotune ({len(kept_numbers)} configs kept by `not (spills > 0) and fits`): winner config "
          f"{pruned['config']} {pruned['ms']:.4f} ms; {pruned_s:.1f} s -> saved {full_s - pruned_s:.1f} s "
          f"({(full_s - pruned_s) / full_s:.0%}); same winner: {summary['same_winner']}")
PY

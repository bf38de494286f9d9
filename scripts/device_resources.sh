#!/usr/bin/env bash
# On a GPU machine: n_regs / n_spills at launch vs ttinspect's offline figures, every shipped variant.
#   bash scripts/device_resources.sh [OUT_DIR]
set -uo pipefail
OUT=${1:-${OUT:-out}}
mkdir -p "$OUT"
export TTINSPECT_CACHE_DIR=${TTINSPECT_CACHE_DIR:-$(mktemp -d)} TRITON_DEFAULT_FP_FUSION=1 PYTHONUNBUFFERED=1
python3 -m pip install -q --no-deps --no-build-isolation -e . > /dev/null 2>&1
python3 - <<'PY' | tee "$OUT/resources.txt"
from ttinspect.gpu.resources_check import compare_in_fresh_process
from ttinspect.kernel.catalog import all_variants
print("| variant | arch | GPU n_regs | GPU n_spills | offline registers | offline n_spills | stack B | local B | agree |")
print("|---|---|---|---|---|---|---|---|---|")
for v in all_variants():
    c = compare_in_fresh_process(v.name)
    print(f"| {c.variant} | {c.arch} | {c.gpu_n_regs} | {c.gpu_n_spills} | {c.offline_registers} | "
          f"{c.offline_spills} | {c.offline_stack} | {c.offline_local} | {'yes' if c.agrees else 'NO'} |")
PY

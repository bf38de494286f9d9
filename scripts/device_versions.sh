#!/usr/bin/env bash
# On a GPU machine (Triton 3.6.0): other releases' machine code for the same kernel, timed through this
# Triton's runtime (benchmarks/cubin_swap.py; the cubins come from `cubin_swap.py export`, made offline).
#   bash scripts/device_versions.sh SWAP_DIR [OUT_DIR]
set -uo pipefail
SWAP=${1:-swapdata}
OUT=${2:-${OUT:-out}}
mkdir -p "$OUT"
export TTINSPECT_CACHE_DIR=${TTINSPECT_CACHE_DIR:-$(mktemp -d)} TRITON_DEFAULT_FP_FUSION=1 PYTHONUNBUFFERED=1
python3 -m pip install -q --no-deps --no-build-isolation -e . > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
for dir in "$SWAP"/*/; do
  name=$(basename "$dir")
  echo "=== $name"
  python3 benchmarks/cubin_swap.py run "$dir" --size 4096 --rounds 5 --json "$OUT/$name.json" | tail -30
done

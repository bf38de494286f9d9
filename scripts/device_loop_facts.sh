#!/usr/bin/env bash
# On the GPU machine: per-loop facts from the JIT's artifacts vs the offline compile (docs/facts.md).
#   bash scripts/device_loop_facts.sh [OUT_DIR]
set -uo pipefail
OUT=${1:-${OUT:-out}}
mkdir -p "$OUT"
export TTINSPECT_CACHE_DIR=$(mktemp -d) TRITON_DEFAULT_FP_FUSION=1 PYTHONUNBUFFERED=1
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -n 2
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)"; } | tee "$OUT/device.txt"
python3 scripts/device_loop_facts.py "$OUT" 2>&1 | tee "$OUT/loop_facts.txt"

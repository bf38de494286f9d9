#!/usr/bin/env bash
# On a GPU machine: is the advice of `ttinspect check` right? Times each finding's situation against
# its suggested fix (docs/check.md, "Evidence on the GPU").
#   bash scripts/device_check_advice.sh [OUT_DIR]
set -uo pipefail
OUT=${1:-${OUT:-out}}
mkdir -p "$OUT"
export TTINSPECT_CACHE_DIR=${TTINSPECT_CACHE_DIR:-$(mktemp -d)} TRITON_DEFAULT_FP_FUSION=1 PYTHONUNBUFFERED=1
python3 -m pip install -q --no-deps --no-build-isolation -e . > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
# Non-matmul rules: narrow loads, occupancy, a loop not pipelined.
python3 scripts/check_advice.py --rounds 5 --json "$OUT/advice.json" | tee "$OUT/advice.md"
# Spills (tileon: 128x256 fp32 accumulator in 4 warps) against the two fixes the finding names.
ttinspect bench tileon tileon:num_warps=8 tileon:BLOCK_N=128 --sizes 4096,8192 --rounds 3 \
  | tee "$OUT/spills.txt"
# mma.sync on Hopper because num_warps is not a multiple of 4, against num_warps=4.
ttinspect bench naive:num_warps=2 naive opt:num_warps=2 opt --sizes 4096 --rounds 3 | tee "$OUT/mma.txt"
# The GPU's own registers/spills for the spill fixes (n_regs/n_spills as launched).
python3 - <<'PY' | tee "$OUT/spills_resources.txt"
from ttinspect.gpu.resources_check import compare_in_fresh_process
for ref in ("tileon", "tileon:num_warps=8", "tileon:BLOCK_N=128", "naive:num_warps=2"):
    try:
        c = compare_in_fresh_process(ref)
        print(ref, "GPU n_regs", c.gpu_n_regs, "n_spills", c.gpu_n_spills, "offline", c.offline_registers,
              c.offline_spills, "agree" if c.agrees else "DISAGREE")
    except Exception as e:  # the measurement goes on
        print(ref, "error:", e)
PY

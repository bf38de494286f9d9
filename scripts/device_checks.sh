#!/usr/bin/env bash
# Run on a machine with an NVIDIA GPU (the project's H100 runs): install ttinspect without touching
# the machine's triton/torch, then run the GPU tests and record the JIT-equivalence hashes.
#   bash scripts/device_checks.sh [OUT_DIR]
set -uo pipefail
OUT=${1:-${OUT:-out}}
mkdir -p "$OUT"
export TTINSPECT_CACHE_DIR=$(mktemp -d) TRITON_DEFAULT_FP_FUSION=1 PYTHONUNBUFFERED=1
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -n 2
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)"; } | tee "$OUT/device.txt"
python3 - <<'PY' | tee "$OUT/jit_equivalence.txt"
from ttinspect.gpu.jit_check import compare_with_jit
for variant in ("naive", "opt"):
    for size in (1024, 4096):
        c = compare_with_jit(variant, size=size)
        print(f"{c.variant} {c.arch} M=N=K={c.size} offline={c.offline_sha256} jit={c.jit_sha256} identical={c.identical}")
PY
python3 -m pytest -q -p no:cacheprovider -m gpu tests/gpu ${PYTEST_EXTRA:-} 2>&1 | tee "$OUT/gpu_tests.txt"

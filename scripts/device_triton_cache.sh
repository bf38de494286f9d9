#!/usr/bin/env bash
# On a GPU machine: a real Triton cache (torch.compile of a transformer block + a user's file launched)
# for tests/data/triton_cache, and the JIT-equivalence of user-file references. See docs/your-kernels.md.
#   bash scripts/device_triton_cache.sh [OUT_DIR]
set -uo pipefail
OUT=${1:-${OUT:-out}}
mkdir -p "$OUT"
export TTINSPECT_CACHE_DIR=$(mktemp -d) TRITON_CACHE_DIR="$OUT/triton_cache" PYTHONUNBUFFERED=1
export TORCHINDUCTOR_CACHE_DIR=$(mktemp -d)
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -n 2
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)"; } | tee "$OUT/device.txt"
python3 scripts/triton_cache_fixture.py "$OUT" 2>&1 | tail -n 40
du -sh "$TRITON_CACHE_DIR"

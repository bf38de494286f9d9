#!/usr/bin/env bash
# The GPU evidence for docs/h100.md. On a machine with an NVIDIA GPU (torch + triton installed):
#   bash scripts/device_h100.sh tune    [OUT]   # autotune at 4096 and 8192, bench, GPU tests
#   bash scripts/device_h100.sh profile [OUT]   # Nsight Compute counters and the §7.1 ladder
set -uo pipefail
PART=${1:-tune}
OUT=${2:-${OUT:-out}}
mkdir -p "$OUT"
export TTINSPECT_CACHE_DIR=${TTINSPECT_CACHE_DIR:-$(mktemp -d)} TRITON_DEFAULT_FP_FUSION=1 PYTHONUNBUFFERED=1
python3 -m pip install -q --no-deps --no-build-isolation -e . > /dev/null 2>&1
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)"
  which ncu && ncu --version | tail -1; } | tee "$OUT/device-$PART.txt"
winner() {  # the saved autotune winner of opt as a variant reference
  python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['best']['config']; print('opt:' + ','.join(f'{k}={v}' for k, v in c.items()))" "$1"
}
if [ "$PART" = tune ]; then
  ttinspect autotune opt --size 8192 --json > "$OUT/autotune-8192.json"
  W8=$(winner "$OUT/autotune-8192.json")
  ttinspect autotune opt --size 4096 --json > "$OUT/autotune-4096.json"
  W4=$(winner "$OUT/autotune-4096.json")
  ttinspect autotune opt --size 4096   # the table, for the log
  ttinspect bench naive opt opt:GROUP_SIZE_M=1 "$W4" --sizes 1024,2048,4096,8192 --json --plot "$OUT/bench.png" > "$OUT/bench.json"
  ttinspect bench naive opt opt:GROUP_SIZE_M=1 "$W4" "$W8" --sizes 1024,2048,4096,8192
  python3 -m pytest -q -p no:cacheprovider -m gpu tests/gpu 2>&1 | tail -n 15 | tee "$OUT/gpu-tests.txt"
else
  ttinspect profile naive opt opt:GROUP_SIZE_M=1 ladder_g8 ladder_g8_s4 ladder_g8_s4_mod --size 4096 --json > "$OUT/profile.json"
  ttinspect profile naive opt opt:GROUP_SIZE_M=1 --size 4096 --no-cublas
  ttinspect ladder --size 4096 --profile --json > "$OUT/ladder.json"
  ttinspect ladder --size 4096
fi

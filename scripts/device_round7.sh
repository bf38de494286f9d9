#!/usr/bin/env bash
# Issue 39, round 7 on the GPU machine (no network; Triton 3.6.0, torch 2.11 CUDA): the libraries' wheels from
# device_run/wheels/libs47 (pip download --no-deps on the CPU machine), each installed alone (a wheel for another
# Python is skipped). Then, captured twice — by a real run on the GPU and by `capture --as sm_90` — and compared
# per compile and by PTX (scripts/real_libraries/device_compare.py):
#   - lion-pytorch's and aqlm's drivers (scripts/real_libraries/{lion_pytorch,aqlm}/);
#   - trifast's OWN tests (its sdist's tests/, carried in device_run/trifast_tests): the one-command path.
#   OUT=out bash scripts/device_round7.sh
set -u
OUT=${OUT:?set OUT to the results folder}
WHEELS=${WHEELS:-device_run/wheels/libs47}
mkdir -p "$OUT/logs" "$OUT/gpu" "$OUT/as"
SITE=$(mktemp -d)
for wheel in "$WHEELS"/*.whl; do
  timeout 60 python3 -m pip install -q --no-deps --no-index --target "$SITE" "$wheel" >> "$OUT/logs/pip.log" 2>&1 \
    || echo "skipped $(basename "$wheel")" >> "$OUT/logs/pip.log"
done
export PYTHONPATH="$SITE:$PWD" TRITON_CACHE_DIR="$OUT/triton-cache" TTINSPECT_CACHE_DIR="$(mktemp -d)"
export TRITON_DEFAULT_FP_FUSION=1 PYTHONWARNINGS=ignore HOME="$(mktemp -d)"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())" \
  > "$OUT/logs/versions.txt" 2>&1
run_pair() {  # name, folder, command...
  name=$1; folder=$2; shift 2
  (cd "$folder" && timeout 240 python3 -m ttinspect capture -o "$OUT/gpu/$name.ttcap" --force -- "$@") \
    > "$OUT/logs/$name.gpu.log" 2>&1
  (cd "$folder" && timeout 240 python3 -m ttinspect capture --as sm_90 -o "$OUT/as/$name.ttcap" --force -- "$@") \
    > "$OUT/logs/$name.as.log" 2>&1
  if [ -f "$OUT/gpu/$name.ttcap" ] && [ -f "$OUT/as/$name.ttcap" ]; then
    timeout 300 python3 scripts/real_libraries/device_compare.py "$OUT/gpu/$name.ttcap" "$OUT/as/$name.ttcap" \
      > "$OUT/$name.compare.json" 2> "$OUT/logs/$name.compare.log"
  fi
}
run_pair lion "$PWD" python3 scripts/real_libraries/lion_pytorch/drive_lion.py
run_pair aqlm "$PWD" python3 scripts/real_libraries/aqlm/drive_gemv_4x8.py
run_pair trifast_own_tests "$PWD/device_run/trifast_tests" python3 -m pytest -q -x -p no:cacheprovider \
  tests/unit/test_trifast.py
tar -czf "$OUT/captures.tar.gz" -C "$OUT" gpu as logs 2>/dev/null
ls -la "$OUT"

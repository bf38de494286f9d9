#!/usr/bin/env bash
# Issue 30's measurements on the GPU machine (H100, its own Triton and torch, no network): run from the
# repository root with the corpus wheels in $WHEELS (python scripts/corpus_gpu.py --download-wheels DIR).
#   1. what each corpus module computes from the GPU at import (config lists, NUM_SMS-style constants):
#      scripts/device_configs.py record -> $OUT/device_configs_h100.json
#   2. every sm_90 corpus entry launched for real, its PTX compared with ttinspect's offline PTX:
#      scripts/corpus_gpu.py, one library per process, in parallel -> $OUT/corpus_gpu/<library>/corpus_gpu.json
set -u
WHEELS=${WHEELS:-device_run/wheels}
SITE=$(mktemp -d)
python3 -m pip install -q --no-deps --no-index --target "$SITE" "$WHEELS"/*.whl 2>&1 | tail -2
PYTHONPATH="$SITE:$PWD" GEMS_VENDOR=nvidia python3 scripts/device_configs.py record > "$OUT/device_configs_h100.json" \
  2> "$OUT/device_configs_h100.err"
echo "device_configs: exit $?"
for library in liger-kernel fla-core flag-gems torchao gemlite; do
  mkdir -p "$OUT/corpus_gpu/$library"
  OUT="$OUT/corpus_gpu/$library" timeout 560 python3 scripts/corpus_gpu.py --wheels "$WHEELS" --only "$library/" \
    > "$OUT/corpus_gpu/$library/log.txt" 2>&1 &
done
wait
for library in liger-kernel fla-core flag-gems torchao gemlite; do
  echo "== $library"; tail -3 "$OUT/corpus_gpu/$library/log.txt"
done

#!/usr/bin/env bash
# The sm_90 corpus entries the first H100 runs did not compare (docs/corpus.md "On the H100"): a launch that
# faulted on the script's zero inputs (now compiled again through Triton's warmup) and gemlite's four (its
# pruner reads constexprs the call site passes by position; its pruner's own configs). Run from the
# repository root on the GPU machine with the corpus wheels in $WHEELS; results in $OUT/corpus_gpu.json.
set -u
WHEELS=${WHEELS:-device_run/wheels}
GEMS_VENDOR=nvidia timeout 580 python3 scripts/corpus_gpu.py --wheels "$WHEELS" \
  --only fla-core/prepare_wy_repr_bwd_kernel --only torchao/mixed_mm_kernel_compute_bound --only gemlite/ \
  > "$OUT/log.txt" 2>&1
echo "corpus_gpu: exit $?"
tail -12 "$OUT/log.txt"

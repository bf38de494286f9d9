#!/usr/bin/env bash
# Issue 28 on the GPU machine: a program launching the sm_90 Gluon kernels of tests/data/gluon/ (with Gluon's own
# host TensorDescriptors) run under `ttinspect capture`; then `list` and `check` of the capture, whose check
# compares each compile's offline PTX with the run's Triton cache entry. From the repository root:
#   OUT=out bash scripts/device_gluon_capture.sh
set -u
export TRITON_CACHE_DIR="$OUT/tc" TTINSPECT_CACHE_DIR="$(mktemp -d)"
python3 -m ttinspect capture -o "$OUT/gluon.ttcap" -- python3 scripts/device_gluon.py --launch-only 2>&1 | tail -2
python3 -m ttinspect list "$OUT/gluon.ttcap" --json > "$OUT/gluon.list.json"; echo "list: exit $?"
python3 -m ttinspect check "$OUT/gluon.ttcap" --json > "$OUT/gluon.check.json" 2> "$OUT/gluon.check.err"; echo "check: exit $?"
python3 -m ttinspect check "$OUT/gluon.ttcap" --width 160 2>&1 | tail -4
rm -rf "$OUT/tc"

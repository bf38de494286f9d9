#!/usr/bin/env bash
# A check finding's fix measured on a public library's kernel, on the GPU machine (no network), from the
# repository root with the corpus wheels in $WHEELS: Liger-Kernel's RMSNorm ops captured
# (scripts/capture_demo.py's liger_ops), then its backward kernel's loop rewritten as check's TTI001 fix says
# (`tl.range(..., num_stages=3)`) in the installed file, and `bench --source both` replays the launch the
# program made from the text the run compiled and from the edited file, side by side; `check` of each.
set -u
WHEELS=${WHEELS:-device_run/wheels}
SITE=$(mktemp -d)
python3 -m pip install -q --no-deps --no-index --target "$SITE" "$WHEELS"/liger_kernel*.whl 2>&1 | tail -1
export PYTHONPATH="$SITE:$PWD" TRITON_CACHE_DIR="$OUT/tc" TTINSPECT_CACHE_DIR="$(mktemp -d)"
python3 -m ttinspect capture -o "$OUT/liger.ttcap" -- python3 -c "import scripts.capture_demo as d; d.liger_ops()" 2>&1 | tail -1
FILE=$SITE/liger_kernel/ops/rms_norm.py
sed -i 's/for row_idx in range(row_start, row_end):/for row_idx in tl.range(row_start, row_end, num_stages=3):/' "$FILE"
grep -n "tl.range(row_start" "$FILE" || { echo "the loop was not found: liger-kernel changed"; exit 1; }
KERNEL="$OUT/liger.ttcap:_rms_norm_backward_kernel"
python3 -m ttinspect bench "$KERNEL" --source both --rounds 5 --json > "$OUT/fix.json"; echo "bench: exit $?"
python3 -m ttinspect bench "$KERNEL" --source both --rounds 5 --width 120
python3 -m ttinspect check "$KERNEL" --source captured --json > "$OUT/check_before.json"; echo "check before: exit $?"
python3 -m ttinspect check "$KERNEL" --source current --json > "$OUT/check_after.json"; echo "check after: exit $?"
rm -rf "$OUT/tc"

#!/usr/bin/env bash
# Issue 29's measurements on the GPU machine (H100, no network), from the repository root, with the corpus
# wheels in $WHEELS: a real program captured (scripts/capture_demo.py: an autotuned tutorial matmul, Liger-Kernel
# ops, a torch.compile'd function), then every captured compile re-made offline by ttinspect and its PTX compared
# with the one the run wrote into Triton's cache (check's ptx_vs_run), and the capture's overhead on 10,000 launches.
set -u
WHEELS=${WHEELS:-device_run/wheels}
SITE=$(mktemp -d)
python3 -m pip install -q --no-deps --no-index --target "$SITE" "$WHEELS"/*.whl 2>&1 | tail -2
export PYTHONPATH="$SITE:$PWD" TRITON_CACHE_DIR="$OUT/triton-cache" TTINSPECT_CACHE_DIR="$(mktemp -d)"
python3 -m ttinspect capture -o "$OUT/run.ttcap" -- python3 scripts/capture_demo.py > "$OUT/capture.log" 2>&1
echo "capture: exit $?"; tail -3 "$OUT/capture.log"
python3 -m ttinspect list "$OUT/run.ttcap" --json > "$OUT/list.json" 2> "$OUT/list.err"; echo "list: exit $?"
python3 -m ttinspect list "$OUT/run.ttcap" --width 160 > "$OUT/list.txt" 2>&1
python3 -m ttinspect check "$OUT/run.ttcap" --json > "$OUT/check.json" 2> "$OUT/check.err"; echo "check: exit $?"
python3 -m ttinspect check "$OUT/run.ttcap" --width 160 > "$OUT/check.txt" 2>&1
tail -5 "$OUT/check.txt"
if [ -z "${SKIP_OVERHEAD:-}" ]; then
  timeout 240 python3 scripts/capture_overhead.py > "$OUT/overhead.txt" 2>&1; echo "overhead: exit $?"
  tail -12 "$OUT/overhead.txt"
fi
# The replay: a standalone script per captured kernel (ttinspect repro), run on the GPU.
# every launched compile of the run (list --json: the rows with launches)
REFS=$(python3 -c "import json,sys; rows=json.load(open(sys.argv[1]))['compiles']; print(' '.join(r['ref'].rsplit(':',1)[1] for r in rows if r.get('launches')))" "$OUT/list.json" 2>/dev/null)
echo "replaying: $REFS"
for ref in $REFS; do
  python3 -m ttinspect repro "$OUT/run.ttcap:$ref" -o "$OUT/repro_${ref//#/_}.py" --force && \
    timeout 120 python3 "$OUT/repro_${ref//#/_}.py" 2>&1 | tail -1
done
rm -rf "$OUT/triton-cache"

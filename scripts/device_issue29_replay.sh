#!/usr/bin/env bash
# Issue 29, section 4 and 5, on the GPU machine (H100, no network), from the repository root, with the corpus
# wheels in $WHEELS, pytest's in $PYTEST_WHEELS and a public library's test files in $LIBRARY_TESTS (none of them
# committed: scripts/corpus_gpu.py --download-wheels makes the first; the test files come from the library's
# repository). PART=demo: scripts/capture_demo.py captured; every compile checked (PTX vs the run's cache);
# registers and spills vs the cubin the driver loaded (scripts/capture_loaded.py); every launched compile
# replayed by `bench`; each check finding whose fix is a setting measured (scripts/capture_fixes.py).
# PART=model: scripts/capture_model.py (a torch.compile'd transformer, trained 3 steps) captured and checked.
# PART=tests: Liger-Kernel's own test file for its LayerNorm run under pytest, captured, and the same checks.
set -u
WHEELS=${WHEELS:-device_run/wheels}
PYTEST_WHEELS=${PYTEST_WHEELS:-device_run/pytest_wheels}
LIBRARY_TESTS=${LIBRARY_TESTS:-device_run/liger_tests}
SITE=$(mktemp -d)
python3 -m pip install -q --no-deps --no-index --target "$SITE" "$WHEELS"/*.whl 2>&1 | tail -2
python3 -c "import pytest" 2>/dev/null || python3 -m pip install -q --no-deps --no-index --target "$SITE" "$PYTEST_WHEELS"/*.whl
export PYTHONPATH="$SITE:$PWD" TRITON_CACHE_DIR="$OUT/triton-cache" TTINSPECT_CACHE_DIR="$(mktemp -d)"
ROOT=$PWD

checks() {  # $1: the capture's name under $OUT
  local name=$1
  python3 -m ttinspect list "$OUT/$name.ttcap" --json > "$OUT/$name.list.json" 2> "$OUT/$name.list.err"; echo "list: exit $?"
  python3 -m ttinspect check "$OUT/$name.ttcap" --json > "$OUT/$name.check.json" 2> "$OUT/$name.check.err"
  echo "check: exit $?"
  python3 -m ttinspect check "$OUT/$name.ttcap" --width 160 > "$OUT/$name.check.txt" 2>&1; tail -3 "$OUT/$name.check.txt"
  python3 "$ROOT/scripts/capture_loaded.py" "$OUT/$name.ttcap" "$OUT/$name.check.json" > "$OUT/$name.loaded.json"
}

replays() {  # every launched compile of capture $1, replayed and timed on its own
  local name=$1
  refs=$(python3 -c "import json,sys; rows=json.load(open(sys.argv[1]))['compiles']; print(' '.join(r['ref'].rsplit(':',1)[1] for r in rows if r.get('launches')))" "$OUT/$name.list.json")
  : > "$OUT/$name.bench.jsonl"
  for ref in $refs; do
    if out=$(timeout 300 python3 -m ttinspect bench "$OUT/$name.ttcap:$ref" --json 2> "$OUT/bench.err"); then
      echo "$out" | python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin)))" >> "$OUT/$name.bench.jsonl"
      echo "bench $ref: ok"
    else
      echo "{\"ref\": \"$ref\", \"refused\": $(python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().strip()))' < "$OUT/bench.err")}" >> "$OUT/$name.bench.jsonl"
      echo "bench $ref: $(tail -1 "$OUT/bench.err")"
    fi
  done
}

if [ "${PART:-demo}" = demo ]; then
  python3 -m ttinspect capture -o "$OUT/demo.ttcap" -- python3 scripts/capture_demo.py > "$OUT/demo.capture.log" 2>&1
  echo "capture: exit $?"; tail -2 "$OUT/demo.capture.log"
  checks demo
  replays demo
  python3 -m ttinspect bench "$OUT/demo.ttcap:_rms_norm_forward_kernel" "$OUT/demo.ttcap:_rms_norm_forward_kernel:num_warps=4" \
    > "$OUT/demo.bench_table.txt" 2>&1; cat "$OUT/demo.bench_table.txt"
  python3 scripts/capture_fixes.py "$OUT/demo.ttcap" "$OUT/demo.check.json" > "$OUT/demo.fixes.json"
  if command -v ncu > /dev/null; then
    timeout 300 python3 -m ttinspect profile "$OUT/demo.ttcap:_rms_norm_forward_kernel" --json > "$OUT/demo.profile.json" 2>&1
    echo "profile: exit $?"
  fi
elif [ "$PART" = model ]; then  # a torch.compile'd model: Inductor's kernels (its launcher records no grid: no replay)
  python3 -m ttinspect capture -o "$OUT/model.ttcap" -- python3 scripts/capture_model.py > "$OUT/model.capture.log" 2>&1
  echo "capture: exit $?"; tail -2 "$OUT/model.capture.log"
  # Inductor compiles with torch's own ptxas (it sets TRITON_PTXAS_PATH; its compile workers too), which writes a
  # newer PTX ISA than this Triton's: the capture records the version, and re-making it takes that ptxas
  TRITON_PTXAS_PATH=$(python3 -c "import json,sys; print(next(r['ptxas']['path'] for r in map(json.loads, open(sys.argv[1])) if (r.get('ptxas') or {}).get('path')))" "$OUT/model.ttcap") \
    checks model
else
  (cd "$LIBRARY_TESTS" && python3 -m ttinspect capture -o "$OUT/tests.ttcap" -- \
     python3 -m pytest -q -p no:cacheprovider --noconftest test/transformers/test_layer_norm.py > "$OUT/tests.capture.log" 2>&1)
  echo "capture: exit $?"; tail -2 "$OUT/tests.capture.log"
  checks tests
  replays tests
fi
rm -rf "$OUT/triton-cache"

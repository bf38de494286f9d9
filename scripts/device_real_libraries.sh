#!/usr/bin/env bash
# Issue 39 on the GPU machine (H100, Triton 3.6.0, torch 2.11 CUDA, no network), from the repository root:
# each driver of scripts/real_libraries/manifest.toml captured by a real run on the GPU and by
# `capture --as sm_90` (the virtual device, nothing run), then compared per compile (kernels, signatures,
# constexprs, options) and by PTX (scripts/real_libraries/device_compare.py). Results: $OUT/real_libraries.json
# (one object per driver) and $OUT/logs/. The libraries come from the wheels in $WHEELS (pip download --no-deps
# on the CPU machine: docs/real-kernels.md), installed with --no-deps into a folder of their own.
#
#   OUT=out bash scripts/device_real_libraries.sh            # every driver; about 6 minutes
#   ONLY=sageattention OUT=out bash scripts/device_real_libraries.sh
#   MANIFEST=scripts/real_libraries/manifest_unseen.toml WHEELS=device_run/wheels/libs40 OUT=out bash ...
#
# Every step is guarded: a step that fails or runs past its limit is a line in the JSON, never the end of the
# run. Limits: PER_CAPTURE seconds for one capture, PER_COMPARE for one comparison, TOTAL for the whole run
# (drivers not reached by then are listed as skipped).
set -u
OUT=${OUT:?set OUT to the results folder}
WHEELS=${WHEELS:-device_run/wheels/libs39}
PER_CAPTURE=${PER_CAPTURE:-90}
PER_COMPARE=${PER_COMPARE:-120}
TOTAL=${TOTAL:-450}
ONLY=${ONLY:-}
MANIFEST=${MANIFEST:-scripts/real_libraries/manifest.toml}  # manifest_unseen.toml: the libraries of round 2
START=$(date +%s)
mkdir -p "$OUT/logs" "$OUT/gpu" "$OUT/as"
SITE=$(mktemp -d)
if ls "$WHEELS"/*.whl > /dev/null 2>&1; then
  timeout 120 python3 -m pip install -q --no-deps --no-index --target "$SITE" "$WHEELS"/*.whl \
    > "$OUT/logs/pip.log" 2>&1
  echo "pip install: exit $? ($(ls "$WHEELS"/*.whl | wc -l) wheels)"
else
  echo "no wheels in $WHEELS: the libraries must already be importable"
fi
export PYTHONPATH="$SITE:$PWD" TRITON_CACHE_DIR="$OUT/triton-cache" TTINSPECT_CACHE_DIR="$(mktemp -d)"
export TRITON_DEFAULT_FP_FUSION=1 PYTHONWARNINGS=ignore
python3 - > "$OUT/logs/versions.txt" 2>&1 <<'EOF'
import importlib.metadata as m
for name in ("torch", "triton", "conch-triton-kernels", "flashnn", "sageattention", "adasplash", "xformers",
             "mamba-ssm", "einops"):
    try:
        print(name, m.version(name))
    except m.PackageNotFoundError:
        print(name, "not installed")
EOF
cat "$OUT/logs/versions.txt"

# library<TAB>driver, one line per driver of the manifest
DRIVERS=$(python3 - "$ONLY" "$MANIFEST" <<'EOF'
import sys, tomllib
only = sys.argv[1]
data = tomllib.load(open(sys.argv[2], "rb"))
for library in data["library"]:
    if only and library["name"] != only:
        continue
    for driver in dict.fromkeys(k["driver"] for k in library["kernel"] if k.get("driver")):
        print(f"{library['name']}\t{driver}")
EOF
)

RESULTS="$OUT/real_libraries.jsonl"
: > "$RESULTS"
mkdir -p "$OUT/rows"
PARALLEL=${PARALLEL:-6}  # drivers at once: captures are mostly the CPU's work (16 cores); one GPU serves them
one_driver() {
  library=$1; driver=$2
  name=$(echo "$driver" | tr '/' '_' | sed 's/\.py$//')
  if [ $(( $(date +%s) - START )) -ge "$TOTAL" ]; then
    printf '{"library": "%s", "driver": "%s", "skipped": "past the %s s total"}\n' "$library" "$driver" "$TOTAL" \
      > "$OUT/rows/$name.json"
    return
  fi
  timeout "$PER_CAPTURE" python3 -m ttinspect capture -o "$OUT/gpu/$name.ttcap" --force -- \
    python3 "scripts/real_libraries/$driver" > "$OUT/logs/$name.gpu.log" 2>&1
  gpu_rc=$?
  timeout "$PER_CAPTURE" python3 -m ttinspect capture --as sm_90 -o "$OUT/as/$name.ttcap" --force -- \
    python3 "scripts/real_libraries/$driver" > "$OUT/logs/$name.as.log" 2>&1
  as_rc=$?
  compared='null'
  if [ -f "$OUT/gpu/$name.ttcap" ] && [ -f "$OUT/as/$name.ttcap" ]; then
    compared=$(timeout "$PER_COMPARE" python3 scripts/real_libraries/device_compare.py \
      "$OUT/gpu/$name.ttcap" "$OUT/as/$name.ttcap" 2> "$OUT/logs/$name.compare.log")
    [ -z "$compared" ] && compared='{"error": "the comparison failed or timed out (logs/'"$name"'.compare.log)"}'
  fi
  printf '{"library": "%s", "driver": "%s", "gpu_rc": %s, "as_rc": %s, "gpu_last": %s, "as_last": %s, "compare": %s}\n' \
    "$library" "$driver" "$gpu_rc" "$as_rc" \
    "$(tail -n 1 "$OUT/logs/$name.gpu.log" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().strip()[:300]))')" \
    "$(tail -n 1 "$OUT/logs/$name.as.log" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().strip()[:300]))')" \
    "$compared" > "$OUT/rows/$name.json"
  echo "$library $driver: gpu exit $gpu_rc, --as exit $as_rc ($(( $(date +%s) - START )) s)"
}
while IFS=$'\t' read -r library driver; do
  [ -z "$driver" ] && continue
  one_driver "$library" "$driver" &
  while [ "$(jobs -rp | wc -l)" -ge "$PARALLEL" ]; do wait -n; done
done <<< "$DRIVERS"
wait
cat "$OUT"/rows/*.json > "$RESULTS"

# One JSON document, and the totals on stdout.
python3 - "$RESULTS" "$OUT/real_libraries.json" <<'EOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
compared = [r["compare"] for r in rows if isinstance(r.get("compare"), dict) and "ptx" in r["compare"]]
ptx = [p for c in compared for p in c["ptx"]]
totals = {
    "drivers": len(rows),
    "compared": len(compared),
    "compiles_gpu": sum(c["gpu_compiles"] for c in compared),
    "compiles_as": sum(c["as_compiles"] for c in compared),
    "compiles_same": sum(c["same_compiles"] for c in compared),
    "ptx_compared": len(ptx),
    "ptx_as_equals_gpu_record": sum(p["as_vs_gpu_record"] is True for p in ptx),
    "ptx_as_equals_run_cache": sum(p["as_vs_run_cache"] is True for p in ptx),
    "ptx_run_cache_found": sum(p["as_vs_run_cache"] is not None for p in ptx),
}
json.dump({"totals": totals, "drivers": rows}, open(sys.argv[2], "w"), indent=2)
print(json.dumps(totals))
EOF
rm -rf "$OUT/triton-cache" "$SITE"
echo "done in $(( $(date +%s) - START )) s: $OUT/real_libraries.json"

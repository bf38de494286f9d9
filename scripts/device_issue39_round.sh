#!/usr/bin/env bash
# One device call for issues 39 and 40: scripts/device_real_libraries.sh on a manifest (each driver captured by a
# real run on the GPU and by `capture --as sm_90`, compared), and the GPU runs' captures — which carry the
# autotuner's measured timings (scripts/perf_autotune_check.py reads them) — packed into one archive, since a
# device call brings back at most 8 files.
#   OUT=out bash scripts/device_issue39_round.sh                                  # the six libraries of round 1
#   MANIFEST=scripts/real_libraries/manifest_unseen.toml WHEELS=device_run/wheels/libs40 OUT=out bash ...
set -u
OUT=${OUT:?set OUT to the results folder}
WORK=$(mktemp -d)
OUT="$WORK" bash scripts/device_real_libraries.sh
cp "$WORK/real_libraries.json" "$OUT/real_libraries.json"
tar -czf "$OUT/captures.tar.gz" -C "$WORK" gpu as logs 2>/dev/null
ls -la "$OUT"

#!/usr/bin/env bash
# Every sm_90 corpus entry on the GPU machine, one process each, 12 at a time (docs/corpus.md "On the H100"):
# scripts/corpus_gpu.py per entry (launch, or warmup where the launch faults on the script's zero inputs; the
# launch's PTX against ttinspect's offline PTX), then one merged $OUT/corpus_gpu.json with its summary.
# From the repository root, the corpus wheels in $WHEELS (python scripts/corpus_gpu.py --download-wheels DIR).
set -u
WHEELS=${WHEELS:-device_run/wheels}
SITE=$(mktemp -d)  # the libraries once, in a folder of their own (the machine's torch and Triton stay as they are)
python3 -m pip install -q --no-deps --no-index --target "$SITE" "$WHEELS"/*.whl 2>&1 | tail -2
export PYTHONPATH="$SITE:$PWD"
python3 -c "import sys; sys.path.insert(0, 'tests/corpus'); from corpus_manifest import load
print('\n'.join(e.id for e in load() if 'sm_90' in e.targets))" > "$OUT/ids.txt"
echo "entries: $(wc -l < "$OUT/ids.txt")"
xargs -P 12 -I{} sh -c 'd="$OUT/entries/$(echo "{}" | tr "/#" "__")"; mkdir -p "$d"
  OUT="$d" timeout 480 python3 scripts/corpus_gpu.py --only "{}" > "$d/log.txt" 2>&1' < "$OUT/ids.txt"
python3 - <<'PY'
import json, os, pathlib, sys
sys.path.insert(0, "scripts")
from corpus_gpu import summary
out = pathlib.Path(os.environ["OUT"])
ids = out.joinpath("ids.txt").read_text().split()
rows, machine = {}, None
for path in sorted(out.glob("entries/*/corpus_gpu.json")):
    data = json.loads(path.read_text())
    machine = data["machine"]
    for row in data["rows"]:
        if row["id"].replace("/", "_").replace("#", "_") == path.parent.name:  # --only matches by substring
            rows[row["id"]] = row
missing = [i for i in ids if i not in rows]
for i in missing:
    rows[i] = {"id": i, "status": "failed", "reason": "no result (timed out: see its log.txt)"}
ordered = [rows[i] for i in ids]
out.joinpath("corpus_gpu.json").write_text(json.dumps({"machine": machine, "summary": summary(ordered),
                                                       "rows": ordered}, indent=2) + "\n")
print(json.dumps(summary(ordered)))
for row in ordered:
    if row["status"] != "identical":
        print(row["id"], row["status"], row.get("reason", ""))
PY

"""`rank()` over every autotuned sm_90 kernel of the corpus (tests/corpus/manifest.toml): each one's own
autotune list (`configs=None`) at its call site's arguments and grid, as a user ranks a library kernel's
configs offline (docs/predict.md). Needs the corpus libraries (pyproject's `corpus` extra) installed.

    python scripts/rank_corpus.py [OUT.json]      # per kernel: configs listed, predicted, why the others not

Prints one line per kernel and the totals; OUT.json keeps them.
"""

from __future__ import annotations

import collections
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "corpus"))
sys.path.insert(0, str(ROOT / "scripts"))

TARGET = "sm_90"


def main(argv: list[str]) -> int:
    from corpus_gpu import grid_function
    from corpus_manifest import api_args, api_config, load

    from ttinspect import rank

    rows: dict[str, dict] = {}
    for entry in load():
        if TARGET not in entry.targets or entry.autotune_config_for(TARGET) is None:
            continue
        for key, value in entry.env_for(TARGET).items():
            os.environ.setdefault(key, value)
        start = time.monotonic()
        try:
            # the call site's own constexprs go with the arguments: rank() has no other place for them
            ranked = rank(entry.module_ref, None, args={**api_args(entry, TARGET), **api_config(entry, TARGET)},
                          grid=grid_function(entry.grid_for(TARGET)), arch=TARGET)
            reasons = collections.Counter((r.reason or "")[:120] for r in ranked if r.time_ms is None)
            rows[entry.id] = {"configs": len(ranked), "predicted": sum(r.time_ms is not None for r in ranked),
                              "reasons": dict(reasons), "fastest_ms": ranked[0].time_ms if ranked else None}
        except Exception as error:  # this kernel's row says why
            rows[entry.id] = {"error": f"{type(error).__name__}: {str(error)[:300]}"}
        rows[entry.id]["seconds"] = round(time.monotonic() - start, 1)
        print(entry.id, json.dumps(rows[entry.id]), flush=True)
    listed = sum(r.get("configs", 0) for r in rows.values())
    predicted = sum(r.get("predicted", 0) for r in rows.values())
    print(f"{len(rows)} autotuned kernels, {listed} configs listed, {predicted} predicted")
    if argv:
        Path(argv[0]).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""A prediction kept beside its build in the cache, keyed by everything it is computed from — the TTIR's
and the facts' content, the device's figures, the launch's values and grid, and the model's own code — so
a prediction made once is one small file read the next time (rank() of a warm list reads 150 of them).

Counting a launch's work from the TTIR (work.py: every program's loads, masks and L2 sharing) is what a
prediction spends its time on; nothing else in it is worth keeping. The model's source files are part of
the key: a change to the model (another constant, another term) makes every kept prediction unreachable,
never stale. A cache that cannot be written only means the next run predicts again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping

from ttinspect.caches import store
from ttinspect.perf.devices import Device
from ttinspect.perf.model import Prediction

# what the prediction is computed by: a change to any of them is a new key
MODEL_FILES = ("model.py", "terms.py", "work.py", "masks.py", "unroll.py", "ir_program.py", "mma_operands.py",
               "memo.py")
PREFIX = "prediction-"


@lru_cache(maxsize=1)
def model_digest() -> str:
    here = Path(__file__).parent
    digest = hashlib.sha256()
    for name in MODEL_FILES:
        digest.update(name.encode() + b"\0" + (here / name).read_bytes())
    return digest.hexdigest()


def prediction_key(facts: Mapping[str, Any], ttir: str, device: Device, values: Mapping[str, Any],
                   grid: tuple[int, ...] | None) -> str:
    parts = {"model": model_digest(), "ttir": hashlib.sha256(ttir.encode()).hexdigest(), "facts": facts,
             "device": {f.name: _plain(getattr(device, f.name)) for f in fields(device)},
             "values": values, "grid": list(grid) if grid is not None else None}
    text = json.dumps(parts, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _plain(value: Any) -> Any:
    return dict(value) if isinstance(value, Mapping) else value


def is_remembered(entry: Path | None, key: str) -> bool:
    return entry is not None and store.has(entry, f"{PREFIX}{key}.json")


def remembered(entry: Path | None, key: str, compute: Callable[[], Prediction]) -> Prediction:
    """The prediction kept under `key` in the build's entry, else `compute()`'s, kept there."""
    name = f"{PREFIX}{key}.json"
    if entry is not None and store.has(entry, name):
        try:
            return from_dict(json.loads(store.read(entry, name)))
        except (store.Damaged, ValueError, TypeError, KeyError):
            pass  # damaged or from an older layout: predicted again and rewritten
    found = compute()
    if entry is not None:
        store.add_file(entry, name, json.dumps(found.as_dict(), default=repr).encode())
    return found


def from_dict(data: Mapping[str, Any]) -> Prediction:
    return Prediction(data["time_ms"], data["bound"], dict(data["breakdown"]), dict(data["hidden"]),
                      data["tflops"], data["gbps"], data["device"], tuple(data["assumptions"]), runs=data["runs"],
                      reason=data["reason"], config=data.get("config"), details=dict(data["details"]))

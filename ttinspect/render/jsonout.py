"""JSON output: one function, so every `--json` renders values (dataclasses, Paths, dtypes) alike."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any


def _default(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "items"):
        return dict(value.items())
    return repr(value)


def dumps(data: Any) -> str:
    return json.dumps(data, indent=2, default=_default)

"""JSON output: one function, so every `--json` renders values (dataclasses, Paths, dtypes) alike."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from ttinspect.kernel.argument_types import TlDtype
from ttinspect.kernel.variants import config_value_text


def _default(value: Any) -> Any:
    if isinstance(value, TlDtype):  # a dtype constexpr, as every config value shows it: "tl.float16"
        return config_value_text(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "items"):
        return dict(value.items())
    return config_value_text(value) if type(value).__module__.startswith("triton.language") else repr(value)


def dumps(data: Any) -> str:
    return json.dumps(data, indent=2, default=_default)

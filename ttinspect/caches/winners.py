"""The saved autotune winners: `ttinspect autotune` writes them on a GPU machine, `--config best` (or a
config number) reads them anywhere — no triton, no torch.

    <cache root>/autotune/<variant>.json   {"device", "arch", "size", "triton", "best": {...}, "results": [...]}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from ttinspect.caches.store import cache_root, make_dir, write_atomic
from ttinspect.errors import UsageError
from ttinspect.kernel.variants import Variant


def result_path(variant: Variant) -> Path:
    return cache_root() / "autotune" / f"{variant.name}.json"


def save(variant: Variant, data: Mapping[str, Any]) -> Path:
    path = result_path(variant)
    make_dir(path.parent)
    write_atomic(path, json.dumps(data, indent=2, default=repr).encode())
    return path


def config_overrides(variant: Variant, which: str | int) -> dict[str, Any]:
    """`best`: the last `ttinspect autotune` winner; `N` (1-based, text or an int from the API): the variant's
    N-th autotune config."""
    which = str(which)
    if which.isdigit():
        index = int(which)
        if not 1 <= index <= len(variant.autotune_configs):
            raise UsageError(f"--config {which}: {variant.name} has {len(variant.autotune_configs)} autotune "
                             "configs (1-based)" if variant.autotune_configs else
                             f"--config {which}: {variant.name} has no autotune configs")
        return dict(variant.autotune_configs[index - 1])
    if which != "best":
        raise UsageError(f"--config takes `best` or a config number, got {which!r}")
    path = result_path(variant)
    if not path.is_file():
        raise UsageError(f"no autotune result for {variant.name}: run `ttinspect autotune {variant.name}` on a "
                         f"GPU first (it writes {path})")
    try:
        data = json.loads(path.read_text())
        return dict(data["best"]["config"])
    except (OSError, ValueError, KeyError, TypeError) as error:  # damaged or of another layout
        raise UsageError(f"the autotune result {path} cannot be read ({type(error).__name__}); run "
                         f"`ttinspect autotune {variant.name}` on a GPU again, or delete it") from error

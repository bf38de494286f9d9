"""The shipped variants by name: the `ttinspect_kernels` package's list (the repository's `kernels/` folder),
looked up by name or alias, with a near match suggested for a typo."""

from __future__ import annotations

import difflib

from ttinspect.errors import UsageError
from ttinspect.kernel.variants import Variant


def _registry() -> dict[str, Variant]:
    from ttinspect_kernels.registry import VARIANTS  # pure data: does not import triton

    return {v.name: v for v in VARIANTS}


def all_variants() -> list[Variant]:
    return list(_registry().values())


def get_variant(name: str) -> Variant:
    variants = _registry()
    by_name = {alias: v for v in variants.values() for alias in (v.name, *v.aliases)}
    if name in by_name:
        return by_name[name]
    near = difflib.get_close_matches(name, list(by_name), n=3, cutoff=0.4)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise UsageError(f"unknown variant {name!r}{hint} (`ttinspect list` shows them all)")

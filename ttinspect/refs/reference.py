"""The grammar of a shipped variant's reference on the command line: `NAME[:k=v,...][@ARCH]`, with
`--config best|N` (a saved autotune winner, or an autotune config) applied first and `--set` last."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ttinspect.caches.winners import config_overrides
from ttinspect.kernel.catalog import get_variant
from ttinspect.kernel.overrides import parse_settings, resolve
from ttinspect.kernel.variants import Resolved


@dataclass(frozen=True)
class Ref:
    """A variant as written on the command line: `opt`, `opt:num_stages=3,BLOCK_SIZE_N=64`,
    `opt@sm_90`, `opt:num_stages=3@sm_90`."""

    resolved: Resolved
    arch: str | None


def parse_ref(text: str, settings: list[str] | tuple[str, ...] | Mapping[str, Any] = (), arch: str | None = None,
              config: str | None = None) -> Ref:
    """`config`: `best` (the saved autotune winner) or N (the N-th autotune config), applied first;
    the reference's own `:k=v` overrides and then `settings` (`--set`) win over it."""
    name, _, ref_arch = text.partition("@")
    name, _, inline = name.partition(":")
    inline_items = [item for item in inline.split(",") if item.strip()] if inline else []
    overrides: dict[str, Any] = {}
    if config:
        overrides.update(config_overrides(get_variant(name), config))
    overrides.update(parse_settings(inline_items, ref=text))
    overrides.update(settings if isinstance(settings, Mapping) else parse_settings(list(settings)))
    return Ref(resolve(name, overrides), ref_arch or arch)

"""The compiler's pass-by-pass history of a kernel (`ttinspect passes`).

    from ttinspect.passes import history
    h = history(build)                       # engine.Build; TTInspectError with the reason if unavailable
    h.rows                                   # the passes that changed the IR (PassRow)
    h.facts_after("tritongpu-pipeline")      # snapshot facts of the module that pass left
    h.first_change("async_copies")           # the PassRow that first changed a fact

dump.py splits the dumps, snapshot_facts.py reads facts from one snapshot, timeline.py builds the rows,
pass_history.py names passes, store.py caches, show.py diffs one pass, align.py compares two histories.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["FactChange", "PassHistory", "PassRow", "PassStep", "history"]
# Imported on first use: a warm `check` asks only whether a timeline is cached (store.timeline_cached)
# and must not pay for the parsers.
_HOMES = {"PassHistory": "pass_history", "history": "store", "FactChange": "timeline", "PassRow": "timeline",
          "PassStep": "timeline"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(import_module(f".{_HOMES[name]}", __name__), name)
    raise AttributeError(f"module 'ttinspect.passes' has no attribute {name!r}")

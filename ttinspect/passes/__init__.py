"""The compiler's pass-by-pass history of a kernel (`ttinspect passes`).

    from ttinspect.passes import history
    h = history(build)                       # engine.Build; TTInspectError with the reason if unavailable
    h.rows                                   # the passes that changed the IR (PassRow)
    h.facts_after("tritongpu-pipeline")      # snapshot facts of the module that pass left
    h.first_change("async_copies")           # the PassRow that first changed a fact

dump.py splits the dumps, snapshot_facts.py reads facts from one snapshot, timeline.py builds the rows,
history.py names passes, store.py caches, show.py diffs one pass, align.py compares two histories.
"""

from __future__ import annotations

from .history import PassHistory
from .store import history
from .timeline import FactChange, PassRow, PassStep

__all__ = ["FactChange", "PassHistory", "PassRow", "PassStep", "history"]

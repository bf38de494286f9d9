"""Where a build's pass history is kept in its cache entry — names only, so a caller that asks whether
it is there (a warm `check`) imports none of the parsers."""

from __future__ import annotations

SCHEMA = 2  # 2: the `latencies` fact, mbarriers out of shared_buffers, MMA layouts by use
RAW = "kernel.passes.gz"
TIMELINE = f"kernel.passes-{SCHEMA}.json"


def timeline_cached(build) -> bool:
    """Whether `build`'s timeline is already in its entry (read or damaged is store.cached_history's
    business; this is the cheap question)."""
    artifacts = build.artifacts
    return bool(artifacts.verified) and (artifacts._derived_dir() / TIMELINE).is_file()

"""The pass history of a build, kept in its cache entry: the raw dumps (gzip) and the timeline (JSON),
each a derived file with its digest. A warm run reads the timeline alone: no triton, no 5 MB parse."""

from __future__ import annotations

import gzip
import json

from ttinspect.errors import TTInspectError, UsageError
from ttinspect.passes.pass_history import PassHistory
from ttinspect.passes.names import RAW, TIMELINE, timeline_cached
from ttinspect.passes.timeline import build_timeline


def history(build) -> PassHistory:
    """The pass history of `build` (engine.Build): computed on first use — one more compile, with
    per-pass dumps — then read from the cache. Raises TTInspectError with the reason when unavailable.
    A build another Triton made (REF@triton=X.Y.Z) has its history computed by that Triton's toolchain."""
    artifacts = _own_entry(build)
    made_by = str(build.metadata.get("triton_version") or "")
    if made_by and not timeline_cached(build):
        from ttinspect.targets.releases import installed_version  # not on the warm path: no timeline yet

        if made_by != installed_version():
            from ttinspect.refs.other_triton import compute_history  # only for another Triton's build

            compute_history(made_by, build)

    def timeline() -> bytes:
        try:
            data = build_timeline(raw_dump(build))
        except ValueError as exc:
            raise TTInspectError(f"{build.label}: the per-pass dumps could not be read ({exc})") from exc
        return json.dumps(data, separators=(",", ":")).encode()

    data = json.loads(artifacts.derived_file(TIMELINE, timeline))
    return PassHistory.from_timeline(data, label=build.label, target=build.target.name,
                                     triton=build.metadata.get("triton_version"))


def cached_history(build) -> PassHistory | None:
    """The pass history of `build` when its timeline is already in the cache entry, else None — never
    compiles (a warm `check` reads it for free, or goes without)."""
    artifacts = build.artifacts
    if not timeline_cached(build):
        return None

    def absent() -> bytes:
        raise LookupError(TIMELINE)

    try:
        data = json.loads(artifacts.derived_file(TIMELINE, absent))
        return PassHistory.from_timeline(data, label=build.label, target=build.target.name,
                                         triton=build.metadata.get("triton_version"))
    except (LookupError, OSError, ValueError, KeyError, TypeError, TTInspectError):
        return None  # damaged or unreadable: the evidence is absent, the rule still runs


def raw_dump(build) -> str:
    """Everything the per-pass dumps printed for `build`, with compile/pass_dumps.py's stage markers."""
    artifacts = _own_entry(build)

    def compile_with_dumps() -> bytes:
        from ttinspect.engine.builds import pass_dump  # compiles: only when the raw dump is not cached

        return gzip.compress(pass_dump(build).encode(), compresslevel=6, mtime=0)

    return gzip.decompress(artifacts.derived_file(RAW, compile_with_dumps)).decode()


def _own_entry(build):
    artifacts = build.artifacts
    if not artifacts.verified:
        raise UsageError(f"{build.label} is an entry of Triton's cache: it has no source to compile again with "
                         "per-pass dumps, so its pass history is unavailable; name the kernel by its source "
                         "(PATH.py:NAME) instead")
    return artifacts

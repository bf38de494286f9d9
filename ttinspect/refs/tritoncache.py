"""`cache:PREFIX` -> the Build of a kernel in Triton's cache (TRITON_CACHE_DIR or ~/.triton/cache).

The entry is read where it is; what ttinspect derives from it (SASS, the resource table) goes to its own
cache. The kernel is already compiled: its target is the one it was compiled for, and --set/--arg do not
apply.
"""

from __future__ import annotations

from ttinspect.errors import UsageError
from ttinspect.engine.artifacts import Artifacts
from ttinspect.engine.builds import Build, resolve_target
from ttinspect.targets.lookup import all_names, lookup
from ttinspect.caches.triton import default_dir, derived_dir, find


def entry_build(entry):
    arch = entry.arch
    if entry.backend not in ("cuda", "hip"):
        raise UsageError(f"cache:{entry.id[:10]} ({entry.name}) was compiled for {arch}; ttinspect reads NVIDIA "
                         "(cuda) and AMD (hip) entries")
    arch = arch.removeprefix("hip:").split(":")[0]  # "hip:gfx942" -> "gfx942" (a feature suffix dropped)
    target = lookup(arch)
    if target is None:
        raise UsageError(f"cache:{entry.id[:10]} ({entry.name}) was compiled for {arch}, a target ttinspect does "
                         f"not know; known: {', '.join(all_names())}")
    meta = entry.metadata
    config = {k: meta[k] for k in ("num_warps", "num_stages", "num_ctas", "maxnreg")
              if isinstance(meta.get(k), int) and not (k == "num_ctas" and meta[k] == 1)}
    location = entry.source_location()
    kernel = entry.name + (f" ({location[0]}:{location[1]})" if location else "")
    artifacts = Artifacts(entry.directory, stem=entry.name, metadata_file=f"{entry.name}.json",
                          derived=derived_dir(entry), verified=False)
    missing = entry.missing()
    note = f"Triton cache entry {entry.id}" + (f"; missing: {', '.join(missing)}" if missing else "")
    return Build(f"cache:{entry.id[:10]}", kernel, target, config, artifacts,
                 location[0] if location else None, note)


def resolve_entry(prefix: str, arch: str | None = None):
    text, _, ref_arch = prefix.partition("@")
    built = entry_build(find(default_dir(), text))
    wanted = ref_arch or arch
    if wanted:
        target = resolve_target(wanted)
        if target.name != built.target.name:
            raise UsageError(f"{built.label} was compiled for {built.target.name}; an entry of Triton's cache is "
                             f"already compiled, so --arch {wanted} does not apply")
    return built

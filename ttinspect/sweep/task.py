"""The one task of a sweep: (reference text, overrides, arch) -> a row of facts (a small dict).

It runs wherever an executor puts it — this process (a warm point), a worker of the local process
pool, a Ray task on another machine — and computes the facts there, so only the row travels back.
When it ran where the driver's cache is not (another host, or another cache directory), the row also
carries the entry's files, and the driver stores them (`ingest`): every later report of the point is warm.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path
from typing import Any, Mapping

from ttinspect.sweep.grid import CONFIG_AXIS
from ttinspect.caches import store as cache
from ttinspect.refs.resolver import RefOptions, resolve, resolve_one
from ttinspect.engine.builds import build
from ttinspect.errors import CompileError, EXIT_FAILED, TTInspectError, UsageError
from ttinspect.refs.kinds import kind_of
from ttinspect.refs.failed import Failed
from ttinspect.refs.reference import parse_ref
from ttinspect.facts.model import jsonable

# Shown by default, in this order; every other fact of `ttinspect report` is in the row too.
DEFAULT_COLUMNS = ("registers", "spills", "shared_memory", "fits", "occupancy", "occupancy_limit",
                   "pipeline_depth", "tensor_core_path", "loop_tensor_core_ops")


def here() -> dict[str, str]:
    """Where this process's cache is: a worker ships files back when it is not where the driver's is."""
    return {"host": socket.gethostname(), "cache": str(cache.cache_root().expanduser().resolve())}


def point_options(options: Mapping[str, Any], overrides: Mapping[str, Any], arch: str | None):
    """The reference options of one point: the sweep's own --set/--arg/--signature/--config, then the
    point's values (a `config` axis picks the autotune config)."""
    settings = {**options.get("settings", {}), **{k: v for k, v in overrides.items() if k != CONFIG_AXIS}}
    config = overrides.get(CONFIG_AXIS, options.get("config"))
    return RefOptions(settings, dict(options.get("args", {})), options.get("signature"),
                      str(config) if config is not None else None, arch, source=options.get("source"))


def resolve_point(ref: str, overrides: Mapping[str, Any], arch: str | None, options: Mapping[str, Any]):
    """The point's Build (compiled, or found in the cache); shared memory is not checked (`fits`)."""
    opts = point_options(options, overrides, arch)
    if kind_of(ref) == "variant":
        parsed = parse_ref(ref, opts.settings, opts.arch, opts.config)
        return build(parsed.resolved, arch=parsed.arch, check=False)
    builds = resolve(ref, opts, keep_going=True)
    if len(builds) != 1:
        raise UsageError(f"{ref}: {len(builds)} builds for one point; sweep its configs with --grid config=all")
    if isinstance(builds[0], Failed):
        raise CompileError(builds[0].error)
    return builds[0]


def fact_values(report) -> tuple[dict[str, Any], dict[str, str]]:
    """Every fact's value (JSON-able) and why each unknown one is unknown."""
    values, reasons = {}, {}
    for fact in report.facts:
        values[fact.key] = jsonable(fact.value)
        if fact.value is None and fact.unknown:
            reasons[fact.key] = fact.unknown
    text = values.get("occupancy")
    if isinstance(text, str) and text.endswith("%"):  # "31%" -> 31: a number to filter and sort on
        try:
            values["occupancy"] = float(text[:-1]) if "." in text else int(text[:-1])
        except ValueError:
            pass
    return values, reasons


def compile_point(ref: str, overrides: Mapping[str, Any], arch: str | None, options: Mapping[str, Any] | None = None,
                  driver: Mapping[str, str] | None = None) -> dict[str, Any]:
    """One point of a sweep -> its row. Never raises for a point that does not compile (the row says
    why), except `engine.NotCached` when called within `engine.cached_only()`."""
    from ttinspect.report.collect import report_from_build  # the facts' parsers load only when a report is made

    start = time.perf_counter()
    row: dict[str, Any] = {"ref": ref, "point": dict(overrides), "arch": arch, "target": arch, "label": None,
                           "config": {}, "facts": {}, "reasons": {}, "error": None, "entry": None}
    try:
        built = resolve_point(ref, overrides, arch, options or {})
        report = report_from_build(built)
        facts, reasons = fact_values(report)
        limit = built.target.max_shared_per_block
        shared = facts.get("shared_memory") or 0
        facts["fits"] = shared <= limit
        if not facts["fits"]:
            reasons["fits"] = (f"{shared} B of shared memory > {limit} B on {built.target.name}: "
                               "the launch fails with out of resource")
        row.update(label=built.label, target=built.target.name, facts=facts, reasons=reasons,
                   device=report.device_line,
                   config={k: getattr(v, "name", v) if not isinstance(v, (int, float, str, bool)) else v
                           for k, v in built.config.items()},
                   entry=str(built.artifacts.directory))
    except TTInspectError as error:  # the kind and its exit code travel with the row (all failed: exit with it)
        row["error"] = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        row["error_kind"], row["exit_code"] = type(error).__name__, error.exit_code
    except (RecursionError, MemoryError, ValueError, RuntimeError, AssertionError, IndexError, KeyError,
            TypeError) as error:  # Triton's own failures on odd configs: still a row, never a crash
        row["error"] = f"{type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}"
        row["error_kind"], row["exit_code"] = type(error).__name__, EXIT_FAILED  # no known kind
    row["seconds"] = round(time.perf_counter() - start, 3)
    row["worker"] = os.getpid()
    if driver is not None and row["entry"]:
        mine = here()
        if mine != dict(driver) or not _visible_to(driver, row["entry"]):
            row["files"] = entry_files(Path(row["entry"]))
            row["host"] = mine["host"]
    return row


def _visible_to(driver: Mapping[str, str], entry: str) -> bool:
    return Path(entry).resolve().is_relative_to(driver["cache"])


def entry_files(entry: Path) -> dict[str, bytes]:
    """An entry's files (the stored ones and the derived ones, digests included), to ship home."""
    files = {}
    for path in sorted(entry.iterdir()):
        if path.is_file() and not path.name.startswith("."):
            files[path.name] = path.read_bytes()
    return files


def ingest(row: dict[str, Any]) -> None:
    """The driver's side of a remote point: store the entry the worker shipped, under the same key,
    with `cache.store` (atomic; a local entry already there wins), and its derived files beside it.
    The row then names the local entry."""
    files = row.pop("files", None)
    if not files or not row.get("entry"):
        return
    key = Path(row["entry"]).name
    stored_names = set()
    if "manifest.json" in files:
        import json

        try:
            stored_names = set(json.loads(files["manifest.json"]))
        except ValueError:
            stored_names = set()
    payload = {n: d for n, d in files.items() if n in stored_names}
    if not payload or any(cache.digest(d) != json_digest for n, d in payload.items()
                          for json_digest in [_manifest_digest(files, n)]):
        row["ingest_error"] = "the shipped entry does not match its manifest; not stored"
        return
    entry = cache.lookup(key) or cache.store(key, payload)
    for name, data in files.items():
        if name in stored_names or name == "manifest.json" or name.endswith(".sha256"):
            continue
        expected = files.get(f"{name}.sha256", b"").decode().strip()
        if expected and cache.digest(data) == expected and not (entry / name).exists():
            cache.add_file(entry, name, data)
    row["entry"] = str(entry)


def _manifest_digest(files: Mapping[str, bytes], name: str) -> str:
    import json

    return json.loads(files["manifest.json"]).get(name, "")


def warm_reference(ref: str, options: Mapping[str, Any]) -> bool:
    """Compile one reference into the cache and derive its facts (a worker's half of a cold `diff`); True
    when it compiled."""
    from ttinspect.report.collect import report_from_build  # the facts' parsers load only when a report is made

    try:  # the facts too: they are kept beside the entry, so the driver reads them back
        report_from_build(resolve_one(ref, RefOptions(**options)))
    except TTInspectError:
        return False
    return True

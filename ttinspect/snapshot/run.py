"""Making a snapshot and checking one: the two things `ttinspect snapshot` does, as library calls."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..ci.model import CIReport
from .config import SnapshotConfig
from .entries import check_unique, compute_all, planned


@dataclass
class Computed:
    entries: dict[str, dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    triton_version: str = ""

    @property
    def failed(self) -> dict[str, str]:
        return {key: entry["error"] for key, entry in self.entries.items() if entry.get("error")}


def selected(config: SnapshotConfig, files: tuple[str, ...]) -> set[str] | None:
    """The library-relative paths of the FILE arguments that are kernel files of the configuration (a hook
    passes every file a commit touches: the others are not kernels, and are skipped); None: all files."""
    if not files:
        return None
    kernel_files = {os.path.relpath(path, config.root) for path in config.files()}
    given = {os.path.relpath(Path(f).resolve(), config.root) for f in files}
    return kernel_files & given


def only_files(document: dict[str, Any], only: set[str] | None) -> dict[str, Any]:
    if only is None:
        return document
    return {**document, "entries": {k: v for k, v in document.get("entries", {}).items() if v.get("file") in only}}


def others(document: dict[str, Any], only: set[str]) -> dict[str, Any]:
    return {k: v for k, v in document.get("entries", {}).items() if v.get("file") not in only}


def compute(config: SnapshotConfig, *, triton: str | None = None, jobs: int | None = None,
            only: set[str] | None = None, executor: str = "local", ray_address: str | None = None) -> Computed:
    """Every entry of the library as it compiles now (`triton`: compiled by that release instead; `only`:
    the entries of these library-relative files)."""
    from ..engine import triton_version

    start = time.perf_counter()
    plan, notes = planned(config, only)
    check_unique(plan)
    if triton:
        plan = [(key, f"{reference}@triton={triton}", target) for key, reference, target in plan]
    entries = dict(compute_all(plan, config.root, jobs, executor, ray_address))
    versions = {e.get("triton_version") for e in entries.values() if e.get("triton_version")}
    version = str(triton or (versions.pop() if len(versions) == 1 else triton_version()))
    return Computed(entries, notes, time.perf_counter() - start, version)


def check(config: SnapshotConfig, committed: dict[str, Any], computed: Computed) -> CIReport:
    from dataclasses import replace

    from .gate import gate

    report = gate(committed, computed.entries, fail_on=config.fail_on, guard=config.guard,
                  triton_version=computed.triton_version)
    return replace(report, notes=tuple(computed.notes))

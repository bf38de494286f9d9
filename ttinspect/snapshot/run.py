"""Making a snapshot and checking one: the two things `ttinspect snapshot` does, as library calls."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import datetime
from dataclasses import replace

from ttinspect.ci.from_check import relative_file, ttinspect_version
from ttinspect.ci.model import CIReport, ERROR, FINDING, REGRESSED, SUPPRESSED, across_targets
from ttinspect.engine.builds import resolve_target
from ttinspect.errors import NothingToGate
from ttinspect.snapshot.policy import apply
from ttinspect.snapshot.strictness import release_change, strict_results
from ttinspect.snapshot.config import SnapshotConfig
from ttinspect.snapshot.entries import check_unique, compute_all, planned
from ttinspect.snapshot.schema import RELEASE
from ttinspect.files.source_files import local_imports
from ttinspect.targets.releases import triton_version


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
    """The library-relative kernel files a commit touching FILEs must gate: those among them, and those that
    import one of them (a helper module, a config list) from their folder tree. Other files are not
    kernels and are skipped. None: every file."""
    if not files:
        return None

    given = {Path(f).resolve() for f in files}
    chosen = set()
    for path in config.files():
        if given & set(local_imports(path)):  # local_imports starts with the file itself
            chosen.add(os.path.relpath(path, config.root))
    return chosen


def limited(config: SnapshotConfig, files: tuple[str, ...], kernels_given: bool) -> set[str] | None:
    """The library-relative files this run's entries are of (None: the whole library, as configured). FILEs
    select among the kernel files (selected); `--kernels` names some files instead of the configured ones, so
    its run is limited to them: the entries of every other file are kept, never dropped."""
    only = selected(config, files)
    if kernels_given and only is None:
        only = {os.path.relpath(path, config.root) for path in config.files()}
    return only


def require_entries(config: SnapshotConfig, computed: "Computed", files: tuple[str, ...], writing: bool) -> None:
    """An empty gate is refused (exit 5, as pytest's "no tests collected"): a configuration under which no
    kernel file declares an example checks nothing and would always pass. A commit's FILEs that hold no
    kernel file are not an empty gate: there is nothing of theirs to check."""
    if computed.entries or files:
        return
    patterns = ", ".join(config.kernels)
    raise NothingToGate(f"no entries to {'snapshot' if writing else 'check'}: no file that {patterns} matches "
                        f"declares TTINSPECT_EXAMPLES ({config.source}); nothing {'written' if writing else 'checked'}"
                        " (docs/your-kernels.md says how to declare a launch)")


def key_file(key: str) -> str:
    """The examples file of an entry (`mylib/ops/mm.py:small@sm_90` -> `mylib/ops/mm.py`): where the entry
    is declared, which may differ from where its kernel is defined (the entry's `file`)."""
    return key.partition(RELEASE)[0].rpartition("@")[0].rpartition(":")[0]


# Entries made with `snapshot --triton X` are keyed by that release too: `mylib/ops/mm.py:small@sm_90#triton=X`
# (schema.RELEASE).
def release_of(key: str) -> str | None:
    return key.partition(RELEASE)[2] or None


def of_release(document: dict[str, Any] | None, release: str | None) -> dict[str, Any]:
    """The snapshot's entries of one release (None: those of the snapshot's own Triton), keyed without it."""
    entries = (document or {}).get("entries", {})
    return {**(document or {}), "entries": {k.partition(RELEASE)[0]: v for k, v in entries.items()
                                            if release_of(k) == release}}


def compared_release(document: dict[str, Any], triton: str | None) -> str | None:
    """`--check --triton X` compares with the entries made for X when the snapshot has them; otherwise it is
    the upgrade gate: X's kernels against the snapshot's own."""
    if triton and any(release_of(k) == triton for k in document.get("entries", {})):
        return triton
    return None


def merged(computed: "Computed", committed: dict[str, Any] | None, release: str | None,
           only: set[str] | None) -> dict[str, dict]:
    """The entries to write: this release's (to_write), beside every other release's as committed."""
    entries = to_write(computed, of_release(committed, release), only)
    if release:
        entries = {f"{key}{RELEASE}{release}": entry for key, entry in entries.items()}
    rest = {k: v for k, v in (committed or {}).get("entries", {}).items() if release_of(k) != release}
    return {**rest, **entries}


def only_chosen(entries: dict[str, dict], committed: dict[str, Any] | None, chosen: set[str],
                release: str | None) -> dict[str, dict]:
    """`--update ENTRY...`: the chosen entries as `entries` has them (written, or gone when removed), every other
    one as committed."""
    suffix = f"{RELEASE}{release}" if release else ""
    picked = {f"{key}{suffix}" for key in chosen}
    kept = {k: v for k, v in (committed or {}).get("entries", {}).items() if k not in picked}
    return {**kept, **{k: v for k, v in entries.items() if k in picked}}


def only_files(document: dict[str, Any], only: set[str] | None) -> dict[str, Any]:
    if only is None:
        return document
    kept = {k: v for k, v in document.get("entries", {}).items() if key_file(k) in only}
    return {**document, "entries": kept}


def others(document: dict[str, Any], only: set[str]) -> dict[str, Any]:
    return {k: v for k, v in document.get("entries", {}).items() if key_file(k) not in only}


def kept_for(failed_key: str, old: dict[str, Any]) -> dict[str, Any]:
    """The committed entries a failing entry keeps as they were: its own, or for a kernel file that no longer
    loads (`FILE:*@TARGET`, entries.planned) every entry of that file and target — never replaced by nothing."""
    if failed_key in old:
        return {failed_key: old[failed_key]}
    head, _, target = failed_key.rpartition("@")
    if not head.endswith(":*"):
        return {}
    return {key: entry for key, entry in old.items() if key_file(key) == head[:-2] and key.rpartition("@")[2] == target}


def to_write(computed: "Computed", committed: dict[str, Any] | None, only: set[str] | None) -> dict[str, dict]:
    """The entries a snapshot is written with: what compiled now; for an entry that fails now, the committed
    one (kept as it was: a snapshot never records an error as facts), and for a file that no longer loads,
    all of its committed ones; outside `only`, the committed ones."""
    old = (committed or {}).get("entries", {})
    entries = {key: entry for key, entry in computed.entries.items() if not entry.get("error")}
    for key in computed.failed:
        for kept, entry in kept_for(key, old).items():
            entries.setdefault(kept, entry)  # what compiled now wins over what was committed
    if only is not None:
        entries = {**others(committed or {}, only), **entries}
    return entries


def compute(config: SnapshotConfig, *, triton: str | None = None, jobs: int | None = None,
            only: set[str] | None = None, executor: str = "local", ray_address: str | None = None,
            announce: Callable[[str], None] | None = None) -> Computed:
    """Every entry of the library as it compiles now (`triton`: compiled by that release instead; `only`:
    the entries of these library-relative files; `announce`: told once which files are imported)."""
    start = time.perf_counter()
    plan, notes = planned(config, only, announce)
    check_unique(plan)
    if triton:
        plan = [(key, f"{reference}@triton={triton}", target) for key, reference, target in plan]
    entries = dict(compute_all(plan, config.root, jobs, executor, ray_address))
    versions = {e.get("triton_version") for e in entries.values() if e.get("triton_version")}
    version = str(triton or (versions.pop() if len(versions) == 1 else triton_version()))
    return Computed(entries, notes, time.perf_counter() - start, version)


def for_code_scanning(report: CIReport, root: Path, kernels_at: str = "") -> CIReport:
    """The results code scanning should show — regressions, kernels that no longer compile, findings,
    suppressed ones (shown dismissed) — each with a file (code scanning rejects the whole upload for one
    result without a location): its own, else its entry's, else the pyproject.toml line that declares the
    kernels (`kernels_at`); the rules they cite, once."""
    located = relocated(report, root)
    place = _place(kernels_at)
    entries = {e.key: e for e in located.entries}
    results = []
    for r in located.results:
        if r.status not in (REGRESSED, ERROR, FINDING, SUPPRESSED):
            continue
        entry = entries.get(r.entry)
        if not r.file and entry is not None and entry.file:
            r = replace(r, file=entry.file, line=entry.line)
        if not r.file and place is not None:
            r = replace(r, file=place[0], line=place[1])
        results.append(r)
    # the same result on every target (a file that no longer imports) is one annotation, not one per target
    results = [replace(r, entry=label) for label, r in across_targets(results)]
    cited = {r.rule for r in results}
    return replace(located, results=tuple(results), rules=tuple(rule for rule in located.rules if rule.id in cited))


def _place(where: str) -> tuple[str, int | None] | None:
    """`/repo/lib/pyproject.toml:7` as (file, line); None when no file is named."""
    if not where:
        return None
    path, _, line = where.rpartition(":")
    return (path, int(line)) if line.isdigit() and path else (where, None)


def relocated(report: CIReport, root: Path) -> CIReport:
    """Every file made absolute (the writers make it relative to the repository's root, wherever the library lies
    in it)."""
    def absolute(file: str | None) -> str | None:
        return str(root / file) if file and not os.path.isabs(file) else file

    return replace(report, results=tuple(replace(r, file=absolute(r.file)) for r in report.results),
                   entries=tuple(replace(e, file=absolute(e.file)) for e in report.entries))


def repository_relative(report: CIReport, root: Path, repo_root: Path | None) -> CIReport:
    """For Markdown, JUnit and JSON: files relative to the repository's root (as SARIF says them), not to the
    library's folder nor absolute; unchanged where there is no repository."""
    if repo_root is None:
        return report
    located = relocated(report, root)
    return replace(located, results=tuple(replace(r, file=relative_file(r.file, repo_root)) for r in located.results),
                   entries=tuple(replace(e, file=relative_file(e.file, repo_root)) for e in located.entries))


def check(config: SnapshotConfig, committed: dict[str, Any], computed: Computed, *, upgrade: bool = False,
          today: Any = None) -> CIReport:
    """The gate's report: every change classed, then the snapshot's Triton release against this run's (unless
    `upgrade`: `--triton X` compares with another release on purpose), strict mode, and the library's budgets,
    tolerances and suppressions."""
    from ttinspect.snapshot.gate import gate  # the gate's rules and findings: only for --check

    report = gate(committed, computed.entries, fail_on=config.fail_on, guard=config.guard,
                  triton_version=computed.triton_version, ttinspect_version=ttinspect_version(),
                  tolerance=config.policy.tolerance)
    if config.strict:
        report = strict_results(report)
    report = apply(report, computed.entries, config.policy, today or datetime.date.today())
    if not upgrade:
        report = release_change(report, committed, computed.triton_version, config)
    report = replace(report, notes=tuple(computed.notes) + report.notes + device_notes(config.targets))
    return library_relative(report, config.root)


def library_relative(report: CIReport, root: Path) -> CIReport:
    """Errors, explanations, suppressions and notes that name the library's files absolutely (an import's error,
    an expired allow's pyproject.toml line), said relative to its folder as every entry's file is: the same words
    on every machine, and no runner's home folder in a pull request."""
    prefix = str(root).rstrip(os.sep) + os.sep

    def said(text: str | None) -> str | None:
        return text.replace(prefix, "") if text else text

    return replace(report, results=tuple(replace(r, message=said(r.message) or "", detail=said(r.detail) or "",
                                                 suppressed=said(r.suppressed) or "") for r in report.results),
                   entries=tuple(replace(e, error=said(e.error)) for e in report.entries),
                   notes=tuple(said(note) or "" for note in report.notes))


def device_notes(targets: tuple[str, ...]) -> tuple[str, ...]:
    """Which virtual device each target's kernel code is shown (a config the code chooses by the GPU is only as
    right as that GPU): said for every run alike, so that cold, warm and pooled runs say the same."""
    # the virtual device's tables load only where a report is made (a plain `snapshot` writes none)
    from ttinspect.virtual.device import describe_device

    said = []
    for target in targets:
        try:
            device = describe_device(resolve_target(target), {}).removeprefix("virtual device: ")
        except Exception:  # a device the table cannot describe: nothing to say, never a failed gate
            continue
        said.append(f"{target}: the kernels' code sees the virtual device {device} when it asks the GPU")
    return tuple(said)

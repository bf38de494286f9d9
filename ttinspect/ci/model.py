"""What a CI run says, whatever made it (`check`, `diff`, `snapshot --check`) and however it is written
(SARIF, Markdown, JUnit XML, JSON): entries — one kernel × example × target each, the unit a CI system shows
as a test case — and results, each pinned to a kernel's source line where one is known.

Plain frozen dataclasses, JSON-ready through `as_dict()`; no rendering here (ttinspect/ci/sarif.py,
markdown.py, junit.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# A result's status: what it means for the gate.
REGRESSED, IMPROVED, NEUTRAL, FINDING, NEW, REMOVED, ERROR, SUPPRESSED = (
    "regressed", "improved", "neutral", "finding", "new", "removed", "error", "suppressed")
STATUSES = (REGRESSED, IMPROVED, NEUTRAL, FINDING, NEW, REMOVED, ERROR, SUPPRESSED)
LEVELS = ("error", "warning", "note")
# What --format takes on check, diff and snapshot: text is each command's own terminal view.
CI_FORMATS = ("sarif", "markdown", "junit")
FORMATS = ("text", "json", *CI_FORMATS)  # SARIF's levels; ttinspect's severities map info -> note


def level_of(severity: str) -> str:
    """A check finding's severity (info / warning / error) as a CI level."""
    return {"info": "note", "warning": "warning", "error": "error"}.get(severity, "note")


@dataclass(frozen=True)
class Rule:
    """A kind of result, described once (SARIF's `rules`): a finding's TTI id, or a guard (`spills`)."""

    id: str  # "TTI003", "regression/spills"
    name: str  # "register-spills", "spills-went-up"
    summary: str  # one line
    help: str = ""  # what to do about it

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "summary": self.summary, "help": self.help}


@dataclass(frozen=True)
class Result:
    rule: str  # Rule.id
    level: str  # one of LEVELS
    status: str  # one of STATUSES
    entry: str  # the Entry.key it belongs to
    message: str  # one line, with the numbers: "spills 0 → 24 B on sm_90"
    detail: str = ""  # the explanation (diff's), or why it matters
    fix: str = ""  # what to change
    file: str | None = None  # the kernel's source file, relative to the repository root where it is inside it
    line: int | None = None  # 1-based line in `file`
    suppressed: str = ""  # why it does not fail the gate: an allow entry's reason (status SUPPRESSED)

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"unknown level {self.level!r}; valid: {', '.join(LEVELS)}")
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}; valid: {', '.join(STATUSES)}")

    def as_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "level": self.level, "status": self.status, "entry": self.entry,
                "message": self.message, "detail": self.detail, "fix": self.fix, "file": self.file,
                "line": self.line, **({"suppressed": self.suppressed} if self.suppressed else {})}


@dataclass(frozen=True)
class Entry:
    """One kernel × example/config × target: a CI test case."""

    key: str  # "mylib/ops/attn.py:small@sm_90"
    kernel: str  # the reference as the user writes it
    target: str
    status: str  # "ok", "regressed", "improved", "changed", "new", "removed", "failed", "findings"
    file: str | None = None
    line: int | None = None  # the kernel's `def` line
    seconds: float | None = None
    error: str | None = None  # why it could not be compiled or read
    device: str | None = None  # the virtual device that answered the kernel's code (docs/virtual-device.md)

    @property
    def failed(self) -> bool:
        return self.status in ("regressed", "failed")

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "kernel": self.kernel, "target": self.target, "status": self.status,
                "file": self.file, "line": self.line, "seconds": self.seconds, "error": self.error,
                **({"device": self.device} if self.device else {})}


@dataclass(frozen=True)
class CIReport:
    """What one command found: its entries, its results, the rules they cite."""

    command: str  # "check", "diff", "snapshot --check"
    entries: tuple[Entry, ...]
    results: tuple[Result, ...]
    rules: tuple[Rule, ...]
    triton_version: str = ""
    ttinspect_version: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)  # one line each: "3 kernels have no examples"
    stopped: str = ""  # why the run stopped before it could check (bad input, exit 2): one line
    all_rows: bool = True  # Markdown's tables list neutral changes too (snapshot --check: only with --neutral)

    def results_of(self, entry: str) -> tuple[Result, ...]:
        return tuple(r for r in self.results if r.entry == entry)

    @property
    def failed(self) -> bool:
        return any(e.failed for e in self.entries) or bool(self.stopped)

    def as_dict(self) -> dict[str, Any]:
        return {"command": self.command, "triton_version": self.triton_version,
                "ttinspect_version": self.ttinspect_version, "entries": [e.as_dict() for e in self.entries],
                "results": [r.as_dict() for r in self.results], "rules": [r.as_dict() for r in self.rules],
                "notes": list(self.notes), **({"stopped": self.stopped} if self.stopped else {})}


def across_targets(results: list[Result] | tuple[Result, ...]) -> list[tuple[str, Result]]:
    """(label, result): one for a result that every target says in the same words at the same line (a kernel file
    that no longer imports fails alike on sm_80 and sm_90), labelled `FILE:*@sm_80, sm_90`; the others as they are,
    labelled by their entry. A reviewer reads the same error once, and code scanning shows one annotation."""
    rows: dict[tuple, tuple[list[str], Result]] = {}
    for r in results:
        head, at, target = r.entry.rpartition("@")
        if not at:
            rows[(r.entry, id(r))] = ([], r)
            continue
        same = (head, r.rule, r.level, r.status, r.message, r.detail, r.fix, r.file, r.line, r.suppressed)
        if same in rows:
            rows[same][0].append(target)
        else:
            rows[same] = ([target], r)
    return [(f"{key[0]}@{', '.join(targets)}" if len(targets) > 1 else r.entry, r)
            for key, (targets, r) in rows.items()]

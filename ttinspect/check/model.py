"""What `ttinspect check` says about a kernel: findings, each with its evidence, why it matters and the fix.

Frozen dataclasses, JSON-ready through `as_dict()`. Severities are ordered: info < warning < error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SEVERITIES = ("info", "warning", "error")  # ascending


def severity_rank(severity: str) -> int:
    """0 for info, 1 for warning, 2 for error; anything else is a mistake in the caller."""
    try:
        return SEVERITIES.index(severity)
    except ValueError:
        raise ValueError(f"unknown severity {severity!r}; valid: {', '.join(SEVERITIES)}") from None


@dataclass(frozen=True)
class Evidence:
    """One line of a stage (or a fact) that shows the problem, and the kernel's Python line it comes from."""

    stage: str  # "ptx", "sass", "ttgir", "ttir", "metadata", "cubin", "ptxas -v"
    line: int | None  # 1-based line in that stage's text; None for a fact
    text: str  # the instruction / op / fact, as read
    python_line: int | None = None  # the kernel file's line, where attribution can tell

    def as_dict(self) -> dict[str, Any]:
        return {"stage": self.stage, "line": self.line, "text": self.text, "python_line": self.python_line}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Evidence":
        return cls(data["stage"], data["line"], data["text"], data["python_line"])


@dataclass(frozen=True)
class Finding:
    id: str  # "TTI001": stable, for suppressions and tests
    slug: str  # "loop-not-pipelined"
    severity: str  # one of SEVERITIES
    title: str  # one line, with the numbers
    evidence: tuple[Evidence, ...]
    why: str  # why it matters (and, where the rule can tell, why it happened)
    fix: str  # what to change, with numbers

    def __post_init__(self) -> None:
        severity_rank(self.severity)

    @property
    def rank(self) -> int:
        return severity_rank(self.severity)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "slug": self.slug, "severity": self.severity, "title": self.title,
                "evidence": [e.as_dict() for e in self.evidence], "why": self.why, "fix": self.fix}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Finding":
        return cls(data["id"], data["slug"], data["severity"], data["title"],
                   tuple(Evidence.from_dict(e) for e in data["evidence"]), data["why"], data["fix"])

    def text(self) -> str:
        """Plain text: what a failing test prints."""
        lines = [f"{self.severity.upper()} {self.id} {self.slug}: {self.title}"]
        for e in self.evidence:
            where = f"{e.stage}:{e.line}" if e.line is not None else e.stage
            py = f"  (python line {e.python_line})" if e.python_line is not None else ""
            lines.append(f"    {where}: {e.text.strip()}{py}")
        lines.append(f"  why: {self.why}")
        lines.append(f"  fix: {self.fix}")
        return "\n".join(lines)

"""PassHistory: the rows of one compile's pass history, and how a user names a pass (`--show`)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from ttinspect.errors import UsageError
from ttinspect.facts.model import Fact
from ttinspect.passes.snapshot_facts import FACT_KEYS, FACTS, as_facts
from ttinspect.passes.timeline import PassRow


@dataclass(frozen=True)
class PassHistory:
    passes: tuple[PassRow, ...]  # every pass that ran, changed or not
    input_facts: dict[str, Any]  # JSON values of the first snapshot (the module the first pass got)
    input_digest: str
    label: str = ""
    target: str = ""
    triton: str | None = None

    @property
    def rows(self) -> list[PassRow]:
        """The passes that changed the IR (renumbered text) or whose result was not printed."""
        return [row for row in self.passes if row.changed is not False]

    @property
    def unchanged(self) -> int:
        return sum(1 for row in self.passes if row.changed is False)

    def find(self, query: str | int) -> PassRow:
        """A pass by index (`31`), argument (`tritongpu-pipeline`), C++ name (`TritonGPUPipeline`) or
        occurrence (`canonicalize#2`). Ambiguous or unknown names raise UsageError listing the valid ones."""
        text = str(query).strip()
        if text.isdigit():
            number = int(text)
            if not 1 <= number <= len(self.passes):
                raise UsageError(f"no pass {number}: {self.label or 'this kernel'} ran passes 1 to {len(self.passes)}")
            return self.passes[number - 1]
        name, _, which = text.partition("#")
        matches = [row for row in self.passes if name in (row.argument, row.name)
                   or name.lower() in (row.argument.lower(), row.name.lower())]
        if not matches:
            names = list(dict.fromkeys(row.argument for row in self.passes))
            close = [n for n in names if name.lower() in n.lower()][:3] or difflib.get_close_matches(name, names, n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise UsageError(f"no pass {text!r} ran{hint}; passes: {', '.join(names)}")
        if which:
            if not which.isdigit() or not 1 <= int(which) <= len(matches):
                raise UsageError(f"{name} ran {len(matches)} time(s): {_listing(matches)}")
            return matches[int(which) - 1]
        if len(matches) > 1:
            raise UsageError(f"{name} ran {len(matches)} times: {_listing(matches)}; name one")
        return matches[0]

    def facts_after(self, name_or_index: str | int) -> dict[str, Fact]:
        """The snapshot facts of the module the pass left (`Fact.value`; None with `unknown` when absent)."""
        return as_facts(self.find(name_or_index).facts_after)

    def first_change(self, fact_key: str) -> PassRow | None:
        """The first pass that changed `fact_key` (a key of snapshot_facts.FACTS), or None."""
        if fact_key not in FACT_KEYS:
            raise UsageError(f"unknown pass fact {fact_key!r}; valid: {', '.join(FACT_KEYS)}")
        return next((row for row in self.passes if any(c.key == fact_key for c in row.changed_facts)), None)

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "target": self.target, "triton": self.triton,
                "input": {"facts": self.input_facts, "digest": self.input_digest},
                "passes": [row.as_dict() for row in self.passes], "unchanged": self.unchanged,
                "facts": {s.key: {"title": s.title, "explanation": s.explanation} for s in FACTS}}

    @classmethod
    def from_timeline(cls, data: dict[str, Any], **header: Any) -> "PassHistory":
        return cls(tuple(PassRow.from_dict(row) for row in data["passes"]), data["input"]["facts"],
                   data["input"]["digest"], **header)


def _listing(rows: list[PassRow]) -> str:
    return ", ".join(f"{row.label} (pass {row.index})" for row in rows)

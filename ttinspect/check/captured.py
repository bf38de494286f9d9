"""`ttinspect check FILE.ttcap`: every compile a run captured, checked, the worst first — the most severe
findings, then the most spills, then the most launches (a kernel launched a million times matters more
than one launched once). A compile that cannot be checked (its source changed, it does not compile here)
is kept as a row with its one-line reason, after the others. Where the run's Triton cache entry is on this
machine (the capture names its folder), the PTX compiled here is compared with the run's, byte for byte."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ttinspect.check.model import SEVERITIES
from ttinspect.check.run import check_reference
from ttinspect.errors import TTInspectError
from ttinspect.files.source_files import read_regular
from ttinspect.refs.capture_listing import list_capture


@dataclass
class CheckedCompile:
    """One row: the listing's row of the compile, and what checking it gave."""

    row: dict[str, Any]  # refs/capture_listing.py's
    report: Any = None  # the Report; None when it could not be checked
    findings: tuple = ()
    error: str | None = None
    exit_code: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    ptx_vs_run: str | None = None  # "same" / "differs" as the run's PTX; None: the run's entry is not here

    @property
    def spills(self) -> int | None:
        if self.report is None or "spills" not in self.report:
            return None
        return self.report["spills"]

    @property
    def registers(self) -> int | None:
        if self.report is None or "registers" not in self.report:
            return None
        return self.report["registers"]

    def worst_first(self) -> tuple:
        severities = tuple(-self.counts.get(level, 0) for level in reversed(SEVERITIES))
        return (self.error is not None, *severities, -(self.spills or 0), -self.row["launches"])


def check_capture(text: str, options: Any = None, passes: bool = False) -> tuple[dict[str, Any], list[CheckedCompile]]:
    """(the listing's run header, each compile checked) for FILE.ttcap (or FILE.ttcap:KERNEL: its compiles)."""
    listing = list_capture(text, refuse_changed_sources=getattr(options, "source", None) is None)
    checked = []
    for row in listing["compiles"]:
        try:
            report, findings = check_reference(row["ref"], options, passes=passes)
        except TTInspectError as error:
            checked.append(CheckedCompile(row, error=str(error), exit_code=error.exit_code))
            continue
        counts = {level: sum(1 for f in findings if f.severity == level) for level in SEVERITIES}
        checked.append(CheckedCompile(row, report, tuple(findings), counts=counts,
                                      ptx_vs_run=ptx_against_run(row, report.build)))
    checked.sort(key=CheckedCompile.worst_first)
    return listing, checked


def ptx_against_run(row: dict[str, Any], build: Any) -> str | None:
    """`same` when the PTX compiled here is byte-identical to the one the run left in its Triton cache
    (`<entry>/<kernel>.ptx`), `differs` when not; None when that entry is not on this machine (or no PTX)."""
    folder = row.get("triton_cache_dir")
    if not folder or build is None or not build.artifacts.has("ptx"):
        return None
    theirs = read_regular(Path(folder) / f"{row['kernel']}.ptx")
    if theirs is None:
        return None
    return "same" if build.artifacts.data("ptx") == theirs else "differs"

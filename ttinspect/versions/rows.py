"""One kernel under several Tritons: a row of headline facts per release (`ttinspect versions`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ttinspect.errors import TTInspectError
from ttinspect.facts.model import jsonable
from ttinspect.refs.resolver import resolve_one
from ttinspect.report.collect import report_from_build
from ttinspect.targets.releases import installed_version
from ttinspect.toolchains.registry import all_toolchains

# The facts an upgrade is judged by (issue: pipeline depth, tensor-core path, async copies / TMA, shared,
# registers, spills, occupancy).
HEADLINE = ("pipeline_depth", "tensor_core_path", "loop_cp_async", "tma_copies", "shared_memory", "registers",
            "spills", "occupancy")


@dataclass(frozen=True)
class VersionRow:
    version: str
    installed: bool
    facts: dict[str, Any] = field(default_factory=dict)
    display: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    device: str | None = None  # the virtual device line (docs/virtual-device.md), when the code asked it

    def as_dict(self) -> dict[str, Any]:
        return {"triton": self.version, "installed": self.installed, "error": self.error,
                **({"device": self.device} if self.device else {}),
                "facts": {k: jsonable(v) for k, v in self.facts.items()}}


def default_versions() -> list[str]:
    versions = {t.version for t in all_toolchains()}
    here = installed_version()
    if here:
        versions.add(here)
    return sorted(versions, key=lambda v: tuple(int(x) for x in v.split(".")))


def version_rows(ref: str, versions: list[str], options) -> list[VersionRow]:
    """Each release's headline facts; a release that cannot compile the kernel is a row with its reason."""
    here = installed_version()
    rows = []
    for version in versions:
        try:
            built = resolve_one(f"{ref}@triton={version}", options)
            report = report_from_build(built)
        except TTInspectError as error:
            rows.append(VersionRow(version, version == here, error=str(error)))
            continue
        facts = {key: report[key] for key in HEADLINE if key in report}
        display = {key: report.fact(key).display() for key in facts}
        rows.append(VersionRow(version, version == here, facts, display, device=report.device_line))
    return rows


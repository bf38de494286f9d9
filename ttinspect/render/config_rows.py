"""One row per autotune config: what each config compiles to, side by side — the question a Triton
author asks of `@triton.autotune(configs=[...])` before paying for a GPU to time them. The rows are what
`report REF --config all` shows: configs.py prints them as a table, `--json` writes `as_dict()`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ttinspect.errors import TTInspectError
from ttinspect.kernel.variants import config_value_json
from ttinspect.refs.failed import Failed
from ttinspect.report.collect import report_from_build


@dataclass(frozen=True)
class ConfigRow:
    label: str
    note: str  # "autotune config 2 of 4; prune_configs_by not run (needs a GPU): every config is shown"
    config: Mapping[str, Any]
    target: str | None
    facts: Mapping[str, Any]  # registers, spills, shared_memory, fits, blocks_per_sm, occupancy, ...
    reasons: Mapping[str, str]  # why a fact is unknown
    error: str | None = None  # the config did not compile
    exit_code: int = 0  # the error's (errors.EXIT_*)
    device: str | None = None  # the virtual device the kernel's code asked (docs/virtual-device.md)
    device_line: str | None = None  # what the table says of it, and of limits --device-props changed
    triton_version: str | None = None  # the release that compiled it (another one's with REF@triton=X.Y.Z)

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "note": self.note, "target": self.target,
                **({"triton_version": self.triton_version} if self.triton_version else {}),
                **({"device": self.device} if self.device else {}),
                "config": {k: config_value_json(v) for k, v in self.config.items()},
                "facts": dict(self.facts), "unknown_reasons": dict(self.reasons), "error": self.error}


COLUMNS = ("registers", "spills", "shared_memory", "fits", "blocks_per_sm", "occupancy", "pipeline_depth",
           "tensor_core_path")


def config_rows(builds: list) -> list[ConfigRow]:
    """`builds` from `refs.resolve(..., keep_going=True)`: Builds and Failed configs."""
    rows = []
    for built in builds:
        if isinstance(built, Failed):
            rows.append(ConfigRow(built.label, built.note, {}, None, {}, {}, built.error, built.exit_code))
            continue
        try:
            report = report_from_build(built, sass=False)
        except TTInspectError as error:
            rows.append(ConfigRow(built.label, built.note, dict(built.config), built.target.name, {}, {}, str(error),
                                  error.exit_code))
            continue
        facts, reasons = {}, {}
        for key in COLUMNS:
            if key == "fits":
                shared = report["shared_memory"] or 0
                facts[key] = shared <= built.target.max_shared_per_block
                if not facts[key]:
                    reasons[key] = (f"{shared} B of shared memory > {built.target.max_shared_per_block} B "
                                    f"on {built.target.name}: the launch fails with out of resource")
                continue
            fact = report.fact(key)
            facts[key] = fact.value
            if fact.value is None:
                reasons[key] = fact.unknown or ""
        rows.append(ConfigRow(built.label, built.note, dict(built.config), built.target.name, facts, reasons,
                              device=built.device, device_line=report.device_line,
                              triton_version=str(report.triton_version)))
    return rows

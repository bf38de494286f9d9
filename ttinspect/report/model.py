"""The Report: a compiled kernel reduced to facts — the plain, typed model tests assert on
(`inspect(...)` in api.py makes one; report/collect.py collects its facts from a build).

Its findings come from check/, which sits above report/ in the house: check/ installs its `check` here when
it is imported (`install_findings`), and api.py, the CLI and the pytest plugin import it before a report's
findings are asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ttinspect.facts.model import GROUPS, Fact, jsonable
from ttinspect.kernel.variants import config_value_json
from ttinspect.targets.device_limits import changed_limits, limits_text

if TYPE_CHECKING:
    from ttinspect.engine.builds import Build

_FINDINGS: list[Callable[[Report], tuple]] = []  # check/'s `check`, once check/ is imported


def device_line(device: str) -> str:
    """`virtual device: NVIDIA H100 ... (sm_90, 132 SMs): answered the code's GPU questions`."""
    return f"{device}: answered the code's GPU questions"


def build_device_line(build: Any) -> str | None:
    """What a build's outputs say under their title: the virtual device its code asked, and the target's
    limits --device-props changed (the facts read them); None when neither."""
    if build is None:
        return None
    limits = limits_text(build.target)
    said = [device_line(build.device)] if build.device else []
    return "; ".join(said + ([f"facts read {limits}"] if limits else [])) or None


def install_findings(compute: Callable[[Report], tuple]) -> None:
    """check/ says here how a report's findings are computed (report/ may not import check/)."""
    _FINDINGS[:] = [compute]


def findings_of(report: Report) -> tuple:
    if not _FINDINGS:
        raise RuntimeError("Report.findings needs ttinspect.check: use ttinspect.inspect / ttinspect.check, "
                           "or import ttinspect.api first")
    return _FINDINGS[0](report)


@dataclass(frozen=True)
class Report:
    label: str  # "opt:num_stages=3"
    kernel: str  # "ttinspect_kernels.doc003:matmul_opt_kernel"
    target: str  # "sm_90"
    triton_version: str
    config: Mapping[str, Any]
    facts: tuple[Fact, ...]
    main_loop_ptx: str | None = field(default=None, repr=False)  # the loop's PTX lines, for messages
    build: Build | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:  # short: pytest prints it in every failing assert's "where" line
        return f"Report({self.label}@{self.target}, Triton {self.triton_version}, {len(self.facts)} facts)"

    def fact(self, key: str) -> Fact:
        for fact in self.facts:
            if fact.key == key:
                return fact
        raise KeyError(f"no fact {key!r}; known: {', '.join(f.key for f in self.facts)}")

    def __getitem__(self, key: str) -> Any:
        return self.fact(key).value

    def __contains__(self, key: object) -> bool:  # `key in report`: whether the facts include it
        return any(fact.key == key for fact in self.facts)

    # Typed shortcuts for what tests assert most. Each is the fact's value (None when unknown).
    @property
    def device(self) -> str | None:
        """The virtual device that answered the kernel's code's GPU questions (docs/virtual-device.md), or None
        when the code asked none."""
        return self.build.device if self.build is not None else None

    @property
    def target_limits(self) -> dict[str, int]:
        """The target's limits that --device-props changed (targets/device_limits.py); empty: the table's."""
        return changed_limits(self.build.target) if self.build is not None else {}

    def device_fields(self) -> dict[str, Any]:
        """The JSON keys a report's device adds where there is something to say (report, check, diff sides)."""
        return {**({"device": self.device} if self.device else {}),
                **({"target_limits": self.target_limits} if self.target_limits else {})}

    @property
    def device_line(self) -> str | None:
        """The line every output shows under its title when the code asked the device or --device-props
        changed the target's limits (the facts read them), or None."""
        return build_device_line(self.build)

    @property
    def pipeline_depth(self) -> int | None:
        return self["pipeline_depth"]

    @property
    def shared_memory(self) -> int:
        return self["shared_memory"]

    @property
    def tensor_core_path(self) -> str:
        return self["tensor_core_path"]

    @property
    def tensor_core_ops_per_iteration(self) -> int | None:
        return self["loop_tensor_core_ops"]

    @property
    def wait_group(self) -> tuple[int, ...] | None:
        return self["loop_wait_group"]

    @property
    def group_size_m(self) -> int | None:
        return self["group_size_m"]

    @property
    def num_warps(self) -> int:
        return self["num_warps"]

    @property
    def registers(self) -> int | None:
        return self["registers"]

    @property
    def spills(self) -> int | None:
        return self["spills"]

    @property
    def blocks_per_sm(self) -> int | None:
        return self["blocks_per_sm"]

    @cached_property
    def findings(self) -> tuple:
        """What `ttinspect check` finds in this kernel: a tuple of `ttinspect.check.Finding`, errors first
        (computed on first use; rules whose facts are unknown stay silent)."""
        return findings_of(self)

    def by_group(self) -> list[tuple[str, list[Fact]]]:
        """The kernel's groups in GROUPS order, then one group per loop (facts/loops.py), in loop order."""
        groups = [(group, [f for f in self.facts if f.group == group]) for group in GROUPS
                  if any(f.group == group for f in self.facts)]
        loops: dict[str, list[Fact]] = {}
        for f in self.facts:
            if f.group not in GROUPS:
                loops.setdefault(f.group, []).append(f)
        return groups + list(loops.items())

    @property
    def loop_depths(self) -> tuple[int | None, ...]:
        """Every loop's pipeline depth, in loop order (None where a loop's is unknown or n/a): what a
        test of a kernel with several loops asserts, e.g. `assert r.loop_depths == (3, 2)`."""
        return tuple(loop["facts"]["pipeline_depth"].value for loop in self.loops
                     if "pipeline_depth" in loop["facts"])

    @property
    def loops(self) -> list[dict[str, Any]]:
        """Every loop of the kernel (nested ones included) with its own facts: `{"index", "group",
        "facts": {name: Fact}}`, in the TTGIR's order. Empty where the facts have no loops (AMD, no TTGIR)."""
        out: dict[int, dict[str, Any]] = {}
        for f in self.facts:
            head, dot, name = f.key.partition(".")
            if dot and head.startswith("loop") and head[4:].isdigit():
                entry = out.setdefault(int(head[4:]), {"index": int(head[4:]), "group": f.group, "facts": {}})
                entry["facts"][name] = f
        return [out[i] for i in sorted(out)]

    def as_dict(self) -> dict[str, Any]:
        loops = self.loops
        in_loops = {f.key for loop in loops for f in loop["facts"].values()}
        return {"label": self.label, "kernel": self.kernel, "target": self.target,
                "triton_version": self.triton_version,
                "config": {k: config_value_json(v) for k, v in self.config.items()},
                **self.device_fields(),
                "facts": {f.key: f.as_dict() for f in self.facts if f.key not in in_loops},
                "loops": [{"index": loop["index"], "title": loop["group"],
                           **{name: jsonable(f.value) for name, f in loop["facts"].items()
                              if name in ("line", "role", "parent", "partition")},
                           "facts": {name: f.as_dict() for name, f in loop["facts"].items()}} for loop in loops]}

    def summary(self) -> str:
        """Plain text: every fact and the main loop's PTX (what a failing test should print)."""
        lines = [f"ttinspect report: {self.label} on {self.target} (Triton {self.triton_version})"]
        lines += [f"  {f.key} = {f.display()}" for f in self.facts]
        if self.main_loop_ptx:
            lines += ["main loop PTX:", self.main_loop_ptx]
        return "\n".join(lines)

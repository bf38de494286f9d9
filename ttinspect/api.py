"""The public API: `inspect(...)` — any kernel reference reduced to facts, with its findings a lazy
`report.findings` — and `diff(a, b)`. Every kernel goes through the one resolver (refs/resolver.py).

    from ttinspect import inspect, diff
    r = inspect("opt", arch="sm_90", num_stages=3)
    assert r.pipeline_depth == 3
    d = diff("naive", "opt")            # d.changes: every changed fact with its explanation
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any, Mapping

# Imported also for what it does on import: check/ installs how `Report.findings` are computed (report/ may
# not import check/).
from ttinspect.check.run import check, launch_values
from ttinspect.compare.facts_diff import Diff, diff_reports
from ttinspect.errors import UsageError
from ttinspect.kernel.arguments import parse_arg_mapping
from ttinspect.kernel.options import OPTION_KEYS
from ttinspect.refs.reference import parse_ref
from ttinspect.refs.kinds import kind_of
from ttinspect.kernel.overrides import parse_value
from ttinspect.refs.resolver import RefOptions, resolve_one
from ttinspect.virtual.overrides import parse_device_props
from ttinspect.report.collect import report_from_build
from ttinspect.report.model import Report

__all__ = ["inspect", "diff", "report_from_build", "diff_reports", "Report", "Diff"]

def inspect(kernel: Any, arch: str | None = None, *, args: Mapping[str, Any] | None = None,
            config: Mapping[str, Any] | int | str | None = None, signature: str | None = None,
            triton: str | None = None, device_props: Mapping[str, Any] | None = None, source: str | None = None,
            **overrides: Any) -> Report:
    """Compile (or load from the cache) and reduce to facts. `kernel` is any reference ttinspect takes:
    a shipped variant (`"opt:num_stages=3@sm_90"`), `"my_mm.py:matmul"` or a declared example
    (`"my_mm.py:small"`), a Triton cache entry (`"cache:3fa9c2"`), or a kernel object — a @triton.jit
    function, an @triton.autotune'd or @triton.heuristics kernel.

    `args`: the runtime arguments by name as a launch passes them (torch tensors, `Pointer("fp16")`,
    ints, or the `--arg` text: `"*fp16"`, `"i32:16"`); `signature`: all of them in order, as text
    (`"*fp16:16, i32:16, 64"`). `config`: constexprs and options (`{"BLOCK_M": 128, "num_warps": 8}`),
    or the number of an @triton.autotune config (1-based). Keyword overrides are the same as `config`
    entries and win over it. `triton`: compile with that Triton release instead of the installed one
    (`"3.5.1"`, in a toolchain of its own: `ttinspect toolchains`); `kernel` must then be a reference.
    `device_props`: numbers of the target's virtual device that the kernel's code sees while it is imported
    (`{"num_sms": 114}`, as `--device-props`; docs/virtual-device.md). `source`: for a captured kernel whose
    file changed since the run or is not on this machine, `"captured"` compiles the text the capture kept,
    `"current"` the file as it is now (as `--source`).
    """
    props = tuple(f"{k}={v}" for k, v in (device_props or {}).items())
    if triton is not None:
        if not isinstance(kernel, str):
            raise UsageError("inspect(triton=...): give a reference (a variant, \"my.py:kern\"), "
                             "not a kernel object")
        if "@triton=" in kernel:
            raise UsageError(f"inspect({kernel!r}, triton={triton!r}): name the release once")
        kernel = f"{kernel}@triton={triton}"
    plain_variant = (kind_of(kernel) == "variant" and "@triton=" not in kernel and args is None
                     and signature is None and not props and source is None)
    if triton is None and plain_variant and not isinstance(config, (int, str)):
        settings = {**(config or {}), **overrides}
        _check_variant_overrides(kernel, settings)
        if arch is not None:  # the argument wins over the reference's own @arch
            kernel = kernel.partition("@")[0]
        return report_from_build(resolve_one(kernel, RefOptions(settings, {}, None, None, arch)))
    settings = dict(config) if isinstance(config, Mapping) else {}
    settings.update(overrides)
    # `"tl.bfloat16"` is a Triton dtype, as --set reads it (other text stays text: a constexpr may be a string)
    settings = {k: parse_value(v) if isinstance(v, str) and v.strip().startswith("tl.") else v
                for k, v in settings.items()}
    which = None if isinstance(config, Mapping) else config
    parse_device_props(props)  # a wrong key is refused before anything is loaded
    options = RefOptions(settings, dict(args or {}), signature, which, arch, props, source=source)
    built = resolve_one(kernel, options)
    report = report_from_build(built)
    # the values given (args=, signature=) count in the findings as on the command line: check/'s one function,
    # given the arguments as the command line's `--arg` entries
    values = launch_values(dataclasses.replace(options, args=_as_entries(options.args)), built,
                           kernel if isinstance(kernel, str) else None)  # a capture reference: its recorded values
    if not values:
        return report
    return LaunchedReport(**{f.name: getattr(report, f.name) for f in fields(Report)}, launch_values=values)


def _as_entries(args: Mapping[str, Any]) -> dict[str, Any]:
    """The API's arguments as `--arg` parses them ("4096" is the value 4096, "i32:16" a Scalar); other text (a
    Helion tensor's `fp16[1024]`, which its resolver read) stays as given: it is no value."""
    out: dict[str, Any] = {}
    for name, value in args.items():
        if hasattr(value, "data_ptr"):  # a tensor: what it holds is data, no value of the launch's a rule reads
            continue
        try:
            out.update(parse_arg_mapping({name: value}, "argument"))
        except UsageError:
            out[name] = value
    return out


@dataclass(frozen=True, eq=False, repr=False)
class LaunchedReport(Report):
    """A Report of a launch given argument values (`args={"n": 4097}`, a value in `signature=`): its findings
    read them — TTI001's trip count, TTI005's sizes — as `ttinspect check --arg/--signature` does."""

    launch_values: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @cached_property
    def findings(self) -> tuple:
        return check(self, self.launch_values)

    def __eq__(self, other: object) -> bool:  # as a Report: the values given change the findings, not the facts
        if not isinstance(other, Report):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(Report) if f.compare)

    __hash__ = Report.__hash__


def _check_variant_overrides(variant: str, overrides: Mapping[str, Any]) -> None:
    """A shipped variant's overrides name its constexprs, problem sizes or options: any other is refused
    with the valid ones."""
    ref = parse_ref(variant)
    merged = {**ref.resolved.config, **ref.resolved.problem}
    unknown_keys = [k for k in overrides if k not in merged and k not in OPTION_KEYS]
    if unknown_keys:
        valid = ", ".join(list(merged) + [k for k in OPTION_KEYS if k not in merged])
        raise UsageError(f"unknown override(s) {', '.join(unknown_keys)} for {ref.resolved.variant.name}; "
                         f"valid: {valid}")


def diff(a: Any, b: Any, arch: str | None = None, *, triton: str | tuple[str | None, str | None] | None = None,
         **options: Any) -> Diff:
    """Compare two kernels: anything `inspect` takes (a variant with overrides and target
    `opt:num_stages=3@sm_90`, `my_mm.py:small`, `cache:3fa9c2`, a kernel object) or a Report already
    made. `arch`, `args=`, `config=`, `signature=` and keyword overrides apply to both sides.
    `triton`: the Triton release of both sides ("3.5.1") or of each (`("3.5.1", "3.9.0")`; None = the
    installed one), each compiled in its toolchain — "what did the upgrade change?"."""
    versions = tuple(triton) if isinstance(triton, (tuple, list)) else (triton, triton)
    if len(versions) != 2:
        raise UsageError("diff(triton=...): one release, or a pair (a's, b's)")

    def side(ref: Any, version: str | None) -> Report:
        if isinstance(ref, Report):
            if arch is not None or options or version is not None:
                raise UsageError("diff(): a Report is already compiled; arch, triton and overrides do not apply")
            return ref
        return inspect(ref, arch, triton=version, **options)

    return diff_reports(side(a, versions[0]), side(b, versions[1]))

"""`check(report)`: every rule over one report, the findings sorted by severity (errors first);
`check_reference(ref, options)`: the same for any kernel reference, built even when its shared memory
would not launch (that is one of the findings, not an error of the command)."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from ttinspect.check.model import Finding, severity_rank
from ttinspect.check.recorded_values import captured_launch_values
from ttinspect.errors import CompileError, TTInspectError
from ttinspect.kernel.arguments import signature_values
from ttinspect.refs.failed import Failed
from ttinspect.refs.resolver import resolve, resolve_one
from ttinspect.report.model import install_findings

Rule = Callable[[Any, Any], list]


def rules() -> tuple[Rule, ...]:
    """In id order; each is a pure function (report, build) -> list[Finding]. Imported on first use:
    a warm check reads its findings back and needs none of them."""
    from ttinspect.check.by_vendor import occupancy_limited, register_spills  # the rules: not for a warm check
    from ttinspect.check.gluon import convert_layout_in_loop, serialized_ring  # likewise
    from ttinspect.check.memory import narrow_global_access  # likewise
    from ttinspect.check.pipelining import loop_not_pipelined  # likewise
    from ttinspect.check.shared import shared_memory_limit  # likewise
    from ttinspect.check.tensor_cores import older_mma_path  # likewise
    from ttinspect.check.tma import no_tma  # likewise

    return (loop_not_pipelined, older_mma_path, register_spills, occupancy_limited, narrow_global_access,
            shared_memory_limit, no_tma, convert_layout_in_loop, serialized_ring)


def check(report, args=None) -> tuple[Finding, ...]:
    """All findings for a Report (`inspect(...)`, `report_from_build(...)`); rules whose facts or stages are
    unknown stay silent. `args`: the launch's argument values by name where known (`--arg n=4097`).
    The findings of a build are kept beside its artifacts (a derived file, digest-checked like the SASS):
    a warm check reads them back instead of parsing the PTX and SASS again."""
    build = getattr(report, "build", None)
    if build is None:
        return _run_rules(report, None, args)
    fresh: list[tuple[Finding, ...]] = []

    def derive() -> bytes:
        fresh.append(_run_rules(report, build, args))
        return json.dumps([f.as_dict() for f in fresh[0]]).encode()

    try:
        data = build.artifacts.derived_file(_findings_file(report, build, args), derive)
    except OSError:  # an unwritable cache: the findings are still right, only not kept
        return fresh[0] if fresh else _run_rules(report, build, args)
    if fresh:
        return fresh[0]
    try:
        return tuple(Finding.from_dict(f) for f in json.loads(data))
    except (ValueError, KeyError, TypeError):  # digest-checked, so only from an older layout: compute
        return _run_rules(report, build, args)


def _findings_file(report, build, args) -> str:
    """Named by everything the findings depend on: the code that computes them, the facts they read
    (which also name the target and config), the label, the launch arguments given, and whether the
    pass history (extra evidence for TTI001) is cached."""
    from ttinspect.passes.names import timeline_cached  # the pass-history index: only when findings are computed

    key = {"code": _code_digest(), "label": build.label, "args": {k: repr(v) for k, v in (args or {}).items()},
           "facts": [f.as_dict() for f in report.facts], "history": timeline_cached(build)}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True, default=repr).encode()).hexdigest()[:20]
    return f"kernel.findings-{digest}.json"


@lru_cache(maxsize=1)
def _code_digest() -> str:
    """Every module findings can depend on (all but the commands, renderers, page and GPU tools)."""
    root = Path(__file__).resolve().parents[1]
    skip = {"cli", "render", "html", "gpu", "sweep"}
    sha = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] not in skip:
            sha.update(str(rel).encode() + b"\0" + path.read_bytes())
    return sha.hexdigest()[:16]


def _run_rules(report, build, args) -> tuple[Finding, ...]:
    if build is not None and args:
        from ttinspect.check.context import stages_of  # the stage parsers: only when findings are computed

        stages_of(build).launch_args = dict(args)
    findings: list[Finding] = []
    for rule in rules():
        findings.extend(rule(report, build))
    return tuple(sorted(findings, key=lambda f: (-f.rank, f.id)))


def at_least(findings, severity: str) -> tuple[Finding, ...]:
    floor = severity_rank(severity)
    return tuple(f for f in findings if f.rank >= floor)


def check_reference(ref: Any, options=None, passes: bool = False):
    """(Report, findings) for any reference `resolve_one` takes. A config whose shared memory exceeds the
    target's limit is still built (the resolver's keep-going mode turns the engine's launch check off), so
    its TTI006 error can be shown with the other findings. `passes`: compute the build's pass history first
    (one more compile when it is not cached), so TTI001 always has the pipelining passes' evidence."""
    from ttinspect.report.collect import report_from_build  # the engine and backends: not for a warm check

    try:
        built = resolve_one(ref, options)
    except CompileError as error:
        if "out of resource: shared memory" not in str(error):
            raise
        built = resolve(ref, options, keep_going=True)[0]
        if isinstance(built, Failed):
            raise error
    if passes:
        from ttinspect.passes import history  # the pass-history machinery: only with --passes

        history(built)
    report = report_from_build(built)
    return report, check(report, launch_values(options, built, ref))


def launch_values(options, build, ref: Any = None) -> dict[str, Any]:
    """Every argument value known for the launch, by name: a capture reference's recorded ones (the rule is
    recorded_values.py's), then `--signature`'s values (`4096` in its place) and `--arg`'s (which win, as they
    apply on top of the signature). A value known any way counts wherever a rule reads one (TTI001's trip
    count, TTI005's sizes)."""
    values: dict[str, Any] = captured_launch_values(ref)
    text = getattr(options, "signature", None)
    try:
        recorded = (build.metadata.get("ttinspect") or {}).get("signature") or {}
    except (TTInspectError, OSError):  # an unreadable entry: the rules stay silent about values
        recorded = {}
    if text and recorded:
        values.update(signature_values(text, list(recorded)))
    values.update(getattr(options, "args", None) or {})
    return values


install_findings(check)  # `Report.findings` is this module's `check` (report/ may not import check/)

"""`check(report)`: every rule over one report, the findings sorted by severity (errors first);
`check_reference(ref, options)`: the same for any kernel reference, built even when its shared memory
would not launch (that is one of the findings, not an error of the command)."""

from __future__ import annotations

from typing import Any, Callable

from .memory import narrow_global_access
from .model import Finding, severity_rank
from .pipelining import loop_not_pipelined
from .registers import occupancy_limited, register_spills
from .shared import shared_memory_limit
from .tensor_cores import no_tma, older_mma_path

Rule = Callable[[Any, Any], list]

# In id order; each is a pure function (report, build) -> list[Finding].
RULES: tuple[Rule, ...] = (loop_not_pipelined, older_mma_path, register_spills, occupancy_limited,
                           narrow_global_access, shared_memory_limit, no_tma)


def check(report, args=None) -> tuple[Finding, ...]:
    """All findings for a Report (`inspect(...)`, `report_from_build(...)`); rules whose facts or stages are
    unknown stay silent. `args`: the launch's argument values by name where known (`--arg n=4097`)."""
    build = getattr(report, "build", None)
    if build is not None and args:
        from .context import stages_of

        stages_of(build).launch_args = dict(args)
    findings: list[Finding] = []
    for rule in RULES:
        findings.extend(rule(report, build))
    return tuple(sorted(findings, key=lambda f: (-f.rank, f.id)))


def at_least(findings, severity: str) -> tuple[Finding, ...]:
    floor = severity_rank(severity)
    return tuple(f for f in findings if f.rank >= floor)


def check_reference(ref: Any, options=None, passes: bool = False):
    """(Report, findings) for any reference `resolve_one` takes. A config whose shared memory exceeds the
    target's limit is still built (the engine's launch check off), so its TTI006 error can be shown with
    the other findings. `passes`: compute the build's pass history first (one more compile when it is not
    cached), so TTI001 always has the pipelining passes' evidence."""
    from ..errors import CompileError
    from ..refs import resolve_one
    from ..report import report_from_build

    try:
        built = resolve_one(ref, options)
    except CompileError as error:
        if "out of resource: shared memory" not in str(error):
            raise
        built = _resolve_unchecked(ref, options, error)
    if passes:
        from ..passes import history

        history(built)
    report = report_from_build(built)
    return report, check(report, getattr(options, "args", None))


def _resolve_unchecked(ref: Any, options, error):
    """The same build without the engine's launch check: variants through `engine.build(check=False)`,
    files and kernel objects through the resolver's keep-going mode (which turns that check off)."""
    from ..refs import Failed, RefOptions, kind_of, resolve

    options = options or RefOptions()
    if kind_of(ref) == "variant":
        from ..engine import build
        from ..variants import parse_ref

        parsed = parse_ref(ref, options.settings, options.arch, options.config)
        return build(parsed.resolved, arch=parsed.arch, check=False)
    found = resolve(ref, options, keep_going=True)[0]
    if isinstance(found, Failed):
        raise error
    return found

"""pytest plugin: assert what the Triton compiler did, in a CPU-only CI, with failures that show why.

Registered through the `pytest11` entry point, so pytest loads this module in every session of every
user who installed ttinspect. Importing it therefore does nothing but define names: triton, torch,
rich and the rest of ttinspect are imported only when a test uses the fixture or `expect`, and every
hook below returns at once for tests that did not use the `ttinspect` fixture. Disable it with
`pytest -p no:ttinspect`.

    def test_opt_pipelines(ttinspect):
        r = ttinspect.inspect("opt", arch="sm_90", num_stages=3)
        ttinspect.expect(r, pipeline_depth=3, tensor_core_path="wgmma", max_shared_memory=49152)
        assert r.num_warps == 4   # a bare assert fails with every fact and the main-loop PTX appended

`expect` is also a plain function (`from ttinspect.pytest_plugin import expect`) for use without the
fixture. See docs/testing.md.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Generator, Mapping

import pytest

if TYPE_CHECKING:  # pragma: no cover
    from ttinspect.compare.facts_diff import Diff
    from ttinspect.facts.model import Fact
    from ttinspect.report.model import Report

__all__ = ["expect", "ExpectationFailed", "TTInspectFixture"]

# Typed shortcuts of Report whose fact key differs from the property name.
ALIASES = {"tensor_core_ops_per_iteration": "loop_tensor_core_ops", "wait_group": "loop_wait_group"}
BUDGET_PREFIXES = {"max_": "<=", "min_": ">="}

_REPORTS = pytest.StashKey["list[Report]"]()  # the Reports a test's `ttinspect` fixture produced or checked


class ExpectationFailed(AssertionError):
    """`expect` found facts that differ from what was expected. The message lists each mismatch with its
    fact's meaning and the lines of compiled code that show it, then the command that shows the rest (every
    fact, the main loop); `.report.summary()` is that rest as text."""

    def __init__(self, message: str, report: Report, mismatches: tuple[str, ...]):
        super().__init__(message)
        self.report = report
        self.mismatches = mismatches


# --- expect ------------------------------------------------------------------------------------

def _resolve_key(report: Report, name: str) -> tuple[str, str | None] | None:
    """`name` -> (fact key, comparison) where comparison is None (equality), "<=" or ">="."""
    keys = {f.key for f in report.facts}
    if name in keys:
        return name, None
    if name in ALIASES and ALIASES[name] in keys:
        return ALIASES[name], None
    for prefix, op in BUDGET_PREFIXES.items():
        if name.startswith(prefix):
            rest = name[len(prefix):]
            rest = rest if rest in keys else ALIASES.get(rest, rest)
            if rest in keys:
                return rest, op
    return None


def _unknown_keys_message(report: Report, bad: list[str]) -> str:
    import difflib

    keys = [f.key for f in report.facts]
    numeric = [f.key for f in report.facts if _is_number(f.value)]
    choices = keys + list(ALIASES) + [p + k for p in BUDGET_PREFIXES for k in numeric + list(ALIASES)]
    parts = []
    for name in bad:
        near = difflib.get_close_matches(name, choices, n=3, cutoff=0.6)
        parts.append(f"{name!r}" + (f" (did you mean {', '.join(near)}?)" if near else ""))
    return (f"expect(): unknown fact key(s) {', '.join(parts)} for {report.label} on {report.target}.\n"
            f"Valid keys: {', '.join(keys)}.\n"
            f"Aliases: {', '.join(f'{a} = {k}' for a, k in ALIASES.items())}.\n"
            f"Budgets: max_<key> / min_<key> on a numeric fact, e.g. "
            f"{', '.join('max_' + k for k in numeric[:4]) or 'max_shared_memory'}.")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _normalize(expected: Any) -> Any:
    if isinstance(expected, list):
        return tuple(_normalize(v) for v in expected)
    return expected


def _matches(actual: Any, expected: Any) -> bool:
    if isinstance(expected, Mapping):  # {"m64n32k16.f32.f16.f16": 4} against a counts fact
        return (isinstance(actual, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in actual)
                and dict(actual) == dict(expected))
    expected = _normalize(expected)
    if isinstance(expected, bool) != isinstance(actual, bool):
        return False
    return actual == expected


def _describe(fact: Fact) -> str:
    text = f"{fact.title}: {fact.explanation} [read from {fact.source}]"
    if fact.value is not None and fact.display() != repr(fact.value):
        text += f" (shown as: {fact.display()})"
    return text


def expect(report: Any, **expected: Any) -> Report:
    """Check facts of `report` (a Report, or anything `inspect` takes as it is: `"my_mm.py:small"`,
    `"cache:3fa9c2"`, a kernel object whose arguments need no values) by key; raise `ExpectationFailed`
    (an AssertionError) listing every mismatch — key, expected, actual, the fact's explanation or why it
    is unknown, the compiled lines that show it — and then the command that shows every fact and the main
    loop (`pytest -vv` adds them to the failure as a section).

    - `key=value`: the fact equals value (`pipeline_depth=3`, `tensor_core_path="wgmma"`,
      `loop_wait_group=(2,)`; lists count as tuples, a dict matches a counts fact such as
      `loop_wgmma={"m64n32k16.f32.f16.f16": 4}`). `key=None` asserts the fact is unknown.
    - `max_key=n` / `min_key=n`: a budget on a numeric fact (`max_shared_memory=49152`,
      `min_pipeline_depth=3`). An unknown fact fails a budget: ttinspect never guesses.
    - keys are those of `report.facts`, plus the Report shortcuts `tensor_core_ops_per_iteration`
      and `wait_group`. An unknown key raises `ttinspect.UsageError` listing the valid ones.
    - `max_severity="info"` (or "warning"): no finding of `ttinspect check` above that severity
      (`report.findings`); a failure prints each such finding with its evidence, why and fix.

    Returns the report, so `r = expect(ttinspect.inspect(...), ...)` reads naturally.
    """
    __tracebackhide__ = True
    from ttinspect.api import Report  # on use: the plugin loads in every pytest session
    from ttinspect.errors import UsageError  # on use: the plugin loads in every pytest session

    if not isinstance(report, Report):  # a reference or a kernel object: inspect it as it is
        from ttinspect.api import inspect  # on use: the plugin loads in every pytest session

        report = inspect(report)
    max_severity = expected.pop("max_severity", None)
    if not expected and max_severity is None:
        raise UsageError("expect() needs at least one key=value, e.g. expect(report, pipeline_depth=3)")
    found = {name: _resolve_key(report, name) for name in expected}
    bad = [name for name, r in found.items() if r is None]
    if bad:
        raise UsageError(_unknown_keys_message(report, bad))
    resolved = {name: r for name, r in found.items() if r is not None}

    mismatches: list[str] = []
    for name, want in expected.items():
        key, op = resolved[name]
        fact = report.fact(key)
        got = fact.value
        if op is None:
            if _matches(got, want):
                continue
            wanted = f"{want!r}" if want is not None else "unknown"
        else:
            if not _is_number(want):
                raise UsageError(f"expect(): budget {name}={want!r} needs a number")
            if got is not None and not _is_number(got):
                raise UsageError(f"expect(): budget {name} applies to numeric facts only; "
                                 f"{key} is {got!r}")
            if got is not None and (got <= want if op == "<=" else got >= want):
                continue
            wanted = f"{op} {want!r}"
        actual = f"{got!r}" if got is not None else f"unknown ({fact.unknown or 'no reason given'})"
        evidence = "".join(f"\n      {line}" for line in _evidence(report, key))
        mismatches.append(f"  {name}: expected {wanted}, got {actual}\n      {_describe(fact)}{evidence}")

    failed = len(mismatches)
    if max_severity is not None:
        above = _findings_above(report, max_severity)
        failed += bool(above)  # one expectation, however many findings break it
        mismatches += above
    if mismatches:
        checked = len(expected) + (max_severity is not None)
        head = (f"ttinspect: {failed} of {checked} expectation(s) failed for "
                f"{report.label} on {report.target} (Triton {report.triton_version}, {report.kernel})")
        message = "\n".join([head, *mismatches, _the_rest(report)])
        raise ExpectationFailed(message, report, tuple(mismatches))
    return report


def _evidence(report: Report, key: str) -> list[str]:
    """The compiled lines that show fact `key` (`ptx:412  cp.async.wait_group 2;`), as a diff shows them."""
    from ttinspect.compare.evidence import witness  # on use: the plugin loads in every pytest session

    return witness(report.build, key, limit=2)


def _the_rest(report: Report) -> str:
    """Where every fact and the main loop are: the commands, where the report's label is a shipped variant's
    reference that compiles this very kernel (a user's kernel may share its name); else `pytest -vv`."""
    import shlex

    from ttinspect.errors import TTInspectError  # on use: the plugin loads in every pytest session
    from ttinspect.kernel.catalog import get_variant  # on use: the plugin loads in every pytest session

    try:
        variant = get_variant(report.label.partition(":")[0].partition("@")[0]).kernel == report.kernel
    except TTInspectError:
        variant = False
    if variant:
        ref, arch = shlex.quote(report.label), shlex.quote(report.target)
        return (f"every fact: ttinspect report {ref} --arch {arch} --explain\n"
                f"the main loop: ttinspect dump {ref} --arch {arch} --loop   (pytest -vv adds both here)")
    return "every fact and the main loop: pytest -vv adds them here; in Python, error.report.summary()"


def _findings_above(report: Report, max_severity: str) -> list[str]:
    """One mismatch per finding above `max_severity`, with its evidence, why and fix."""
    from ttinspect.check import SEVERITIES, severity_rank  # on use: the plugin loads in every pytest session
    from ttinspect.errors import UsageError  # on use: the plugin loads in every pytest session

    if max_severity not in SEVERITIES:
        raise UsageError(f"expect(): max_severity={max_severity!r}; valid: {', '.join(SEVERITIES)}")
    floor = severity_rank(max_severity)
    return [f"  max_severity={max_severity!r}: found\n" + "\n".join("    " + line for line in f.text().split("\n"))
            for f in report.findings if f.rank > floor]


# --- the fixture -------------------------------------------------------------------------------

class TTInspectFixture:
    """What the `ttinspect` fixture returns. Every report it produces (or checks with `expect`) is
    remembered for the test: if the test fails, their summaries are appended to the failure report."""

    def __init__(self, reports: list[Report] | None = None):
        self.reports: list[Report] = reports if reports is not None else []

    def _keep(self, report: Report) -> Report:
        if not any(r is report for r in self.reports):
            self.reports.append(report)
        return report

    def inspect(self, kernel: Any, arch: str | None = None, **options: Any) -> Report:
        """`ttinspect.inspect`: a variant (`"opt:num_stages=3@sm_90"`), `"my_mm.py:matmul"`, `"cache:3fa9c2"`
        or a kernel object, with `args=`, `config=`, `signature=` and overrides, reduced to facts."""
        from ttinspect.api import inspect  # on use: the plugin loads in every pytest session

        return self._keep(inspect(kernel, arch, **options))

    def inspect_jit(self, fn: Any, args: Mapping[str, Any], config: Mapping[str, Any] | None = None,
                    arch: str | None = None) -> Report:
        """Any `@triton.jit` function: `args` as a launch would pass them (`Pointer("fp16")`, ints),
        `config` the constexprs and options (num_warps, num_stages). See `ttinspect.build_jit`."""
        from ttinspect.api import report_from_build  # on use: the plugin loads in every pytest session
        from ttinspect.engine.builds import build_jit  # on use: the plugin loads in every pytest session

        return self._keep(report_from_build(build_jit(fn, args, config, arch)))

    def diff(self, a: Any, b: Any, arch: str | None = None, **options: Any) -> Diff:
        """`ttinspect.diff` of two references or kernel objects (with `args=`, `config=`, overrides), or
        of two Reports already made."""
        from ttinspect.api import diff  # on use: the plugin loads in every pytest session

        result = diff(a, b, arch, **options)
        self._keep(result.a)
        self._keep(result.b)
        return result

    def expect(self, report: Any, **expected: Any) -> Report:
        """`ttinspect.pytest_plugin.expect` (see there); also remembers the report for this test."""
        __tracebackhide__ = True
        from ttinspect.api import Report  # on use: the plugin loads in every pytest session

        if not isinstance(report, Report):
            report = self.inspect(report)
        self._keep(report)
        return expect(report, **expected)

    def __repr__(self) -> str:
        return f"<ttinspect fixture: {len(self.reports)} report(s)>"


@pytest.fixture
def ttinspect(request: pytest.FixtureRequest) -> TTInspectFixture:
    """ttinspect: compile Triton kernels offline (no GPU) and assert on the facts.

    `ttinspect.inspect(variant, arch=None, **overrides)`, `ttinspect.inspect_jit(fn, args, config,
    arch)`, `ttinspect.diff(a, b, ...)`, `ttinspect.expect(report, pipeline_depth=3,
    max_shared_memory=49152, ...)`. When the test fails, the facts and main-loop PTX of every report
    it produced are appended to the failure output.
    """
    reports: list[Report] = []
    request.node.stash[_REPORTS] = reports  # fresh per run of the test (reruns included)
    return TTInspectFixture(reports)


# --- hooks -------------------------------------------------------------------------------------

def _reports_of(item: pytest.Item) -> list[Report]:
    """The reports to show for a failed test that used the fixture: the fixture's, then Reports
    (or Diffs) that other fixtures handed the test."""
    reports = list(item.stash.get(_REPORTS, ()))
    report_mod, diff_mod = sys.modules.get("ttinspect.report.model"), sys.modules.get("ttinspect.compare.facts_diff")
    for value in getattr(item, "funcargs", {}).values():
        found: list[Report] = []
        if report_mod is not None and isinstance(value, report_mod.Report):
            found = [value]
        elif diff_mod is not None and isinstance(value, diff_mod.Diff):
            found = [value.a, value.b]
        for report in found:
            if not any(r is report for r in reports):
                reports.append(report)
    return reports


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    outcome = yield
    if call.when != "call":
        return
    rep = outcome.get_result()
    error = call.excinfo.value if call.excinfo is not None else None
    # Only failed assertions (bare `assert`, `expect`, `pytest.fail`): not errors such as a bad key.
    if not rep.failed or not isinstance(error, (AssertionError, pytest.fail.Exception)):
        return
    shown = error.report if isinstance(error, ExpectationFailed) else None
    if shown is not None and item.config.get_verbosity() >= 2:  # -vv: the rest the expect message points to
        rep.sections.append((f"ttinspect: {shown.label} on {shown.target}", shown.summary()))
    if _REPORTS not in item.stash:
        return
    for report in _reports_of(item):
        if report is shown:
            continue  # the expect message names its failing facts, and how to see the rest
        rep.sections.append((f"ttinspect: {report.label} on {report.target}", report.summary()))


def pytest_assertrepr_compare(config: pytest.Config, op: str, left: object, right: object) -> list[str] | None:
    """`assert report_a == report_b`: list the facts that differ instead of two long reprs."""
    report_mod = sys.modules.get("ttinspect.report.model")
    if op != "==" or report_mod is None:
        return None
    if not (isinstance(left, report_mod.Report) and isinstance(right, report_mod.Report)):
        return None
    lines = [f"ttinspect Report {left.label} on {left.target} == {right.label} on {right.target}"]
    right_facts = {f.key: f for f in right.facts}
    differing = [(f, right_facts.get(f.key)) for f in left.facts
                 if right_facts.get(f.key) is None or (f.value, f.unknown) != (right_facts[f.key].value,
                                                                              right_facts[f.key].unknown)]
    if differing:
        lines.append("differing facts (left != right):")
        for fa, fb in differing:
            lines.append(f"  {fa.key}: {fa.display()} != {fb.display() if fb else '(absent)'}")
    for attr in ("kernel", "target", "triton_version"):
        if getattr(left, attr) != getattr(right, attr):
            lines.append(f"{attr}: {getattr(left, attr)!r} != {getattr(right, attr)!r}")
    if dict(left.config) != dict(right.config):
        lines.append(f"config: {dict(left.config)!r} != {dict(right.config)!r}")
    return lines


# --- --ttinspect-capture=FILE: record the kernels the tests compile and launch ---------------------------

_CAPTURE = pytest.StashKey[Any]()  # the Recording (in the controller) or True (in an xdist worker)
_CAPTURE_EXIT = pytest.StashKey[int]()  # the session's exit status, for the capture's end


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("ttinspect").addoption(
        "--ttinspect-capture", metavar="FILE", default=None,
        help="Record every Triton kernel the tests compile and launch into the capture FILE (docs/capture.md); "
             "xdist workers are recorded too.")


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("ttinspect_capture", None)
    if not path:
        return
    from ttinspect.capture import api  # on use: the plugin loads in every pytest session
    from ttinspect.errors import TTInspectError  # on use: the plugin loads in every pytest session

    if hasattr(config, "workerinput"):  # an xdist worker: the controller's run records it
        config.stash[_CAPTURE] = api.join_as_worker()
        return
    try:
        config.stash[_CAPTURE] = api.start_with_workers(path)
    except TTInspectError as error:
        raise pytest.UsageError(f"--ttinspect-capture: {error}") from None


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config.stash[_CAPTURE_EXIT] = int(exitstatus)  # a capture's end record says how the run ended


def pytest_unconfigure(config: pytest.Config) -> None:
    recording = config.stash.get(_CAPTURE, None)
    if recording is None or recording is False:
        return
    from ttinspect.capture import api  # on use: the plugin loads in every pytest session

    if recording is True:
        api.leave_as_worker()
        return
    merged = recording.finish(config.stash.get(_CAPTURE_EXIT, None))
    config.get_terminal_writer().line(f"ttinspect: captured {merged.compiles} compile(s) and {merged.launches} "
                                      f"launch(es) into {merged.path}")

"""`ttinspect check`: findings about a kernel — severity, evidence, why, the fix (logic in ttinspect/check/);
over a whole capture (FILE.ttcap), every compile of the run, the worst first (check/captured.py)."""

from __future__ import annotations

import click

from ttinspect.cli.app import cli
from ttinspect.ci.model import FORMATS
from ttinspect.cli.common import REF_HELP, options_from, ref_options
from ttinspect.errors import failures_exit_code

_LEVELS = click.Choice(["info", "warning", "error"])


@cli.command(epilog=REF_HELP)
@click.argument("ref", metavar="REF")
@ref_options
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (the same as --format json).")
@click.option("--format", "fmt", default="text", type=click.Choice(FORMATS), show_default=True,
              help="text (the terminal view), json, or for CI: sarif (GitHub code scanning), markdown (a PR "
                   "comment, $GITHUB_STEP_SUMMARY), junit (a test report).")
@click.option("-o", "--output", "out", default=None, metavar="FILE",
              help="Write --format's output to FILE (atomically; its folder must exist) instead of stdout.")
@click.option("--force", is_flag=True, help="With -o: overwrite FILE if it exists.")
@click.option("--min-severity", default="info", type=_LEVELS, show_default=True,
              help="Show only findings at or above this severity.")
@click.option("--fail-on", default=None, type=click.Choice(["warning", "error"]),
              help="Exit 1 when a finding at or above this severity exists (shown or not). Default: exit 0 "
                   "whatever is found.")
@click.option("--passes", "with_passes", is_flag=True,
              help="Compute the pass history first (one more compile when not cached) so TTI001 shows what "
                   "Triton's pipelining passes did; without it, a history already cached is used.")
def check(ref: str, arch: str | None, settings: tuple[str, ...], args: tuple[str, ...], signature: str | None,
          config: str | None, as_json: bool, fmt: str, out: str | None, force: bool, min_severity: str,
          fail_on: str | None, with_passes: bool) -> None:
    """What is wrong with REF's compiled code: each finding with its severity, the evidence (instructions or
    IR lines and their Python line), why it matters and the fix. Rules: docs/check.md. Exit status 0
    unless --fail-on is given. A capture (FILE.ttcap, or FILE.ttcap:KERNEL compiled several times): every
    compile it holds, one row each, the worst first."""
    import time

    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.check import at_least, check_reference
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.ci.write import check_format_and_output, format_of, write_text

    fmt = format_of(as_json, fmt)
    check_format_and_output(fmt, out, force)  # before compiling: a refused -o costs nothing
    options = options_from(arch, settings, args, signature, config)
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.refs.capture_listing import names_several

    if names_several(ref):  # a capture: every compile it holds
        _check_capture(ref, options, fmt, out, force, min_severity, fail_on, with_passes)
        return
    started = time.perf_counter()
    report, findings = check_reference(ref, options, passes=with_passes)
    seconds = time.perf_counter() - started
    shown = at_least(findings, min_severity)
    failed = fail_on is not None and bool(at_least(findings, fail_on))
    if fmt == "json":
        data = {"label": report.label, "kernel": report.kernel, "target": report.target,
                **report.device_fields(),
                "triton_version": report.triton_version, "min_severity": min_severity,
                "counts": {level: sum(1 for f in findings if f.severity == level)
                           for level in ("error", "warning", "info")},
                "findings": [f.as_dict() for f in shown]}
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.render.jsonout import dumps

        write_text(dumps(data) + "\n", out, force)  # stdout when out is None
    elif fmt == "text":
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.render.findings import findings_view

        findings_view(report, shown, len(findings) - len(shown), min_severity)
    else:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.ci.from_check import ci_from_findings, find_repo_root
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.ci.write import emit

        root = find_repo_root()
        emit(ci_from_findings(report, shown, root, failed=failed, ref=ref, seconds=seconds), fmt, out, force,
             root)
    if failed:
        raise click.exceptions.Exit(1)


def _check_capture(ref: str, options, fmt: str, out: str | None, force: bool, min_severity: str,
                   fail_on: str | None, with_passes: bool) -> None:
    """Every compile of the capture checked; exit 1 on --fail-on (a compile that could not be checked fails
    the gate too), else non-zero only when none could be checked."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.check import at_least
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.check.captured import check_capture
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.ci.write import write_text
    listing, rows = check_capture(ref, options, with_passes)
    unchecked = [row for row in rows if row.error is not None]
    failed = fail_on is not None and (bool(unchecked) or any(at_least(row.findings, fail_on) for row in rows))
    if fmt == "json":
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.render.capture_check import capture_check_json
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.render.jsonout import dumps

        write_text(dumps(capture_check_json(listing, rows, min_severity)) + "\n", out, force)
    elif fmt == "text":
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.render.capture_check import capture_check_table

        capture_check_table(listing, rows, min_severity)
    else:
        _emit_ci(rows, fmt, out, force, min_severity, fail_on)
    if failed:
        raise click.exceptions.Exit(1)
    if rows and len(unchecked) == len(rows):
        raise click.exceptions.Exit(failures_exit_code([row.exit_code for row in rows]))


def _emit_ci(rows, fmt: str, out: str | None, force: bool, min_severity: str, fail_on: str | None) -> None:
    """SARIF, Markdown or JUnit: one entry per compile (those that could not be checked, failed with their
    reason), the findings of them all."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.check import at_least
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.ci.from_check import ci_from_findings, find_repo_root, rules_of, ttinspect_version
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.ci.model import CIReport, Entry
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.ci.write import emit

    root = find_repo_root()
    entries: list[Entry] = []
    results: list = []
    shown_all: list = []
    triton = ""
    for row in rows:
        if row.error is not None:
            entries.append(Entry(key=row.row["ref"], kernel=row.row["ref"], target=row.row["target"] or "",
                                 status="failed", file=row.row["file"], line=row.row["line"], error=row.error))
            continue
        shown = at_least(row.findings, min_severity)
        gate = fail_on is not None and bool(at_least(row.findings, fail_on))
        one = ci_from_findings(row.report, shown, root, failed=gate, ref=row.row["ref"])
        entries += one.entries
        results += one.results
        shown_all += shown
        triton = triton or one.triton_version
    emit(CIReport(command="check", entries=tuple(entries), results=tuple(results), rules=rules_of(shown_all),
                  triton_version=triton, ttinspect_version=ttinspect_version()), fmt, out, force, root)

"""`ttinspect check`: findings about a kernel — severity, evidence, why, the fix (logic in ttinspect/check/)."""

from __future__ import annotations

import click

from ttinspect.cli.app import cli
from ttinspect.ci.model import FORMATS
from ttinspect.cli.common import REF_HELP, options_from, ref_options

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
    unless --fail-on is given."""
    import time

    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.check import at_least, check_reference
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.ci.write import check_format_and_output, format_of, write_text

    fmt = format_of(as_json, fmt)
    check_format_and_output(fmt, out, force)  # before compiling: a refused -o costs nothing
    started = time.perf_counter()
    report, findings = check_reference(ref, options_from(arch, settings, args, signature, config),
                                       passes=with_passes)
    seconds = time.perf_counter() - started
    shown = at_least(findings, min_severity)
    failed = fail_on is not None and bool(at_least(findings, fail_on))
    if fmt == "json":
        data = {"label": report.label, "kernel": report.kernel, "target": report.target,
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


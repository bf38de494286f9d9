"""Writing a CIReport in a CI format, to stdout or to the file `-o` names.

A command calls `check_format_and_output` first — before anything compiles — so a wrong format or an
output path that cannot be written (an existing file without --force, a symbolic link, a FIFO, a missing
folder) is refused in one line without minutes of work thrown away; `emit` then writes through
outputs.write_atomically, so a reader of the file never sees half of it.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from ttinspect.errors import UsageError
from ttinspect.files.outputs import check_output, write_atomically
from ttinspect.ci.model import FORMATS, CIReport

OUTPUT_OPTION = "-o"


def format_of(as_json: bool, fmt: str) -> str:
    """--json is --format json (kept for the scripts that use it); with another --format it is a mistake."""
    if as_json and fmt not in ("text", "json"):
        raise UsageError(f"--json and --format {fmt} disagree: give one of them")
    return "json" if as_json else fmt


def check_format_and_output(fmt: str, out: str | None, force: bool) -> Path | None:
    """The checked output path (None: stdout), or UsageError (exit 2) in one line."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
    if out is None:
        return None
    if fmt == "text":
        raise UsageError(f"{OUTPUT_OPTION} writes {', '.join(FORMATS[1:])} (--format); the text view is for "
                         "the terminal: redirect stdout to save it")
    return check_output(out, force=force, option=OUTPUT_OPTION)


def render(report: CIReport, fmt: str, repo_root: Path | None = None) -> str:
    """The report as text in `fmt` (sarif, markdown, junit, or json: CIReport.as_dict())."""
    if fmt == "sarif":
        from ttinspect.ci.sarif import to_sarif  # only the format asked for is loaded

        return json.dumps(to_sarif(report, repo_root), indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        from ttinspect.ci.markdown import to_markdown  # only the format asked for is loaded

        return to_markdown(report)
    if fmt == "junit":
        from ttinspect.ci.junit import to_junit  # only the format asked for is loaded

        return to_junit(report)
    if fmt == "json":
        return json.dumps(report.as_dict(), indent=2, ensure_ascii=False) + "\n"
    raise UsageError(f"no CI rendering for format {fmt!r}; valid: sarif, markdown, junit, json")


def emit(report: CIReport, fmt: str, out: str | None, force: bool, repo_root: Path | None = None) -> None:
    """Render and write: stdout when `out` is None, else the file, atomically. `out` is checked again
    here — a file may have appeared while the kernels compiled — as outputs.check_output does."""
    write_text(render(report, fmt, repo_root), out, force)


def write_text(text: str, out: str | None, force: bool) -> None:
    """`text` to stdout, or to `out` (checked, then written atomically, UTF-8)."""
    if out is None:
        click.echo(text, nl=False)
        return
    path = check_output(out, force=force, option=OUTPUT_OPTION)
    write_atomically(path, text.encode("utf-8"), force=force)

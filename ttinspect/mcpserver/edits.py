"""The edit a finding's fix implies, as data an agent can apply: settings to pass (the fix's `--set KEY=VALUE`),
or the lines of the kernel's file to change (the Python lines its evidence names, with their text), else only
the instruction. Read from the finding itself: nothing here guesses beyond what the rule wrote."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping

_SET = re.compile(r"--set\s+([A-Za-z_]\w*)=([^\s,;)`]+)")


def _value(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def source_lines(kernel_file: str | None) -> list[str]:
    if not kernel_file:
        return []
    try:
        return Path(kernel_file).read_text(errors="replace").split("\n")
    except OSError:
        return []


def edit_for(finding: Mapping[str, Any], kernel_file: str | None, lines: list[str]) -> dict[str, Any]:
    """{"kind": "settings" | "code" | "none", "instruction": the fix, "file", "settings", "lines"}."""
    fix = str(finding.get("fix", ""))
    settings = {key: _value(value) for key, value in _SET.findall(fix)}
    numbers = sorted({e["python_line"] for e in finding.get("evidence", ()) if e.get("python_line")})
    where = [{"line": n, "text": lines[n - 1].rstrip() if 0 < n <= len(lines) else None} for n in numbers]
    kind = "settings" if settings else "code" if where else "none"
    return {"kind": kind, "instruction": fix, "file": kernel_file, "settings": settings, "lines": where}


def with_edits(findings: list[dict[str, Any]], kernel_file: str | None) -> list[dict[str, Any]]:
    lines = source_lines(kernel_file)
    return [{**finding, "edit": edit_for(finding, kernel_file, lines)} for finding in findings]

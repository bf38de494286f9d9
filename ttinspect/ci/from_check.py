"""`ttinspect check`'s findings as a CIReport: one entry for the checked kernel, one result per finding,
each pinned to the kernel's source file and the Python line its evidence comes from.

Also the path helpers every CI producer shares (from_diff.py uses them): where the repository root is,
a source file relative to it, and a kernel's `def` line read from its file (a Report does not carry it).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any, Iterable

from ttinspect.ci.model import FINDING, CIReport, Entry, Result, Rule, level_of
from ttinspect.files.source_files import read_regular

# One generic line per rule (docs/check.md's table), for SARIF's rule descriptions: a finding's title has
# this kernel's numbers in it, while a rule is described once for every kernel.
_RULE_SUMMARIES = {
    "TTI001": "A loop is not software-pipelined (or shallower than num_stages asks).",
    "TTI002": "Tensor cores run an older MMA path than the target has (mma.sync instead of wgmma/tcgen05).",
    "TTI003": "Registers spill to local memory.",
    "TTI004": "Occupancy is limited by registers, shared memory or the warp count.",
    "TTI005": "Global loads or stores move fewer bytes per thread than the tile allows.",
    "TTI006": "Shared memory exceeds the target's limit, or leaves no room for another stage.",
    "TTI007": "The kernel does not use the Tensor Memory Accelerator (TMA) where the target has it.",
}
RULES_DOC = "docs/check.md"


def ci_from_findings(report: Any, findings: Iterable[Any], repo_root: Path | None, *,
                     failed: bool = False, ref: str | None = None,
                     seconds: float | None = None) -> CIReport:
    """`report`: the checked kernel's Report; `findings`: those to show (already filtered by
    --min-severity). `failed`: whether the command fails the gate (--fail-on hit, counting the findings
    not shown too), so that the entry is `failed` exactly when the command exits 1 and a CI system shows
    a failed test case. `ref`: the reference as the user wrote it."""
    findings = tuple(findings)
    source = _source_file(report)
    file = relative_file(source, repo_root)
    def_line = def_line_of(source, report.kernel)
    key = entry_key(report)
    results = tuple(Result(rule=f.id, level=level_of(f.severity), status=FINDING, entry=key, message=f.title,
                           detail=f.why, fix=f.fix, file=file, line=_python_line(f) or def_line)
                    for f in findings)
    status = "failed" if failed else "findings" if findings else "ok"
    entry = Entry(key=key, kernel=ref or report.label, target=report.target, status=status, file=file,
                  line=def_line, seconds=seconds, device=report.device)
    return CIReport(command="check", entries=(entry,), results=results, rules=rules_of(findings),
                    triton_version=str(report.triton_version), ttinspect_version=ttinspect_version(),
                    notes=device_notes([report]))


def device_notes(reports: Iterable[Any]) -> tuple[str, ...]:
    """Each virtual device that answered a kernel's code, once: every format says it (a config chosen by
    the GPU is only as right as the GPU the code was shown)."""
    return tuple(dict.fromkeys(r.device_line for r in reports if r.device_line))


def rules_of(findings: Iterable[Any]) -> tuple[Rule, ...]:
    """Each finding id once, in order of first appearance."""
    seen: dict[str, Rule] = {}
    for f in findings:
        if f.id not in seen:
            seen[f.id] = finding_rule(f.id, f.slug)
    return tuple(seen.values())


def finding_rule(rule_id: str, slug: str | None) -> Rule:
    """A check rule, described once (for SARIF's rules): its id, slug and the generic line of docs/check.md."""
    name = slug or rule_id
    summary = _RULE_SUMMARIES.get(rule_id) or f"{name.replace('-', ' ').capitalize()}."
    return Rule(id=rule_id, name=name, summary=summary,
                help=f"{summary} Each result says why it matters for this kernel and what to change, with "
                     f"numbers. Rules: {RULES_DOC} ({rule_id} {name}).")


def _python_line(finding: Any) -> int | None:
    """The first evidence line attribution could pin to the kernel's Python source."""
    return next((e.python_line for e in finding.evidence if e.python_line is not None), None)


def entry_key(report: Any) -> str:
    return f"{report.label}@{report.target}"


def _source_file(report: Any) -> str | None:
    build = getattr(report, "build", None)
    return getattr(build, "source_file", None) if build is not None else None


def find_repo_root(start: Path | None = None) -> Path | None:
    """What CI paths are relative to: $GITHUB_WORKSPACE on GitHub Actions (the checkout, whatever folder
    the step runs in), else the nearest folder holding `.git` above `start` (the working directory), else
    None (paths are then written absolute)."""
    workspace = os.environ.get("GITHUB_WORKSPACE", "").strip()
    if workspace and Path(workspace).is_dir():
        return Path(workspace).resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():  # a folder, or a file in a worktree / submodule
            return folder
    return None


def relative_file(path: str | os.PathLike | None, repo_root: Path | None) -> str | None:
    """`path` relative to `repo_root` with `/` separators when it lies inside it; else absolute (a
    shipped kernel installed in site-packages, a cache entry compiled elsewhere); None stays None."""
    if path is None or str(path) == "":
        return None
    full = Path(path)
    if repo_root is not None:
        try:
            return full.resolve().relative_to(Path(repo_root).resolve()).as_posix()
        except (ValueError, OSError):
            pass
    return str(full)


def def_line_of(source_file: str | None, kernel: str) -> int | None:
    """The line of `def NAME` in the kernel's file (`kernel` is "module:NAME" or "file.py:NAME"), read
    with `ast`; None when the file is not here (a cache entry compiled elsewhere) or has no such
    function. Only regular files are read (source_files.read_regular: a FIFO must not hang CI)."""
    if not source_file:
        return None
    name = kernel.rpartition(":")[2]
    data = read_regular(source_file)
    if data is None or not name:
        return None
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node.lineno  # the `def` line itself, decorators excluded (what Triton's locations use)
    return None


def ttinspect_version() -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version("ttinspect")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return ""

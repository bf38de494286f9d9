"""What the page shows of one kernel, gathered from its build and report: the stage texts with their line
maps and main loops, the Python source, the findings, the stage hashes, and (for a diff) the pass history.

Nothing here writes HTML; `page.py` does. Every part that cannot be had (a stage missing from a Triton
cache entry, a source file compiled elsewhere, no pass history) is kept as the reason, shown as a line.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ttinspect.errors import TTInspectError
from ttinspect.engine.builds import Build
from ttinspect.engine.artifacts import MissingStage

STAGES = ("ttir", "ttgir", "llir", "ptx", "sass")


@dataclass(frozen=True)
class StageData:
    stage: str
    text: str | None  # None: the stage is missing (`missing` says why)
    missing: str | None = None
    to_python: tuple[int, ...] = ()  # per stage line (1-based index - 1): the Python line, 0 for none
    attribution_note: str | None = None  # why no line (or only some lines) could be attributed
    loop: Any = None  # loops.LoopSlice, or loops.NoMainLoop (its reason), or None (could not be read)
    loop_error: str | None = None
    digest: str = ""  # sha256 of the text, short

    @property
    def from_python(self) -> dict[int, list[int]]:
        """Python line -> the stage lines it produced (the reverse of `to_python`)."""
        reverse: dict[int, list[int]] = {}
        for index, python_line in enumerate(self.to_python):
            if python_line:
                reverse.setdefault(python_line, []).append(index + 1)
        return reverse

    @property
    def loop_lines(self) -> tuple[int, int] | None:
        start = getattr(self.loop, "start_line", None)
        return (start, self.loop.end_line) if start is not None else None


@dataclass(frozen=True)
class KernelData:
    build: Any  # engine.Build
    report: Any  # report.Report
    findings: tuple
    source_file: str | None
    source_text: str | None  # None: not on this machine (`source_missing` says why)
    source_missing: str | None
    stages: tuple[StageData, ...]
    hashes: tuple[tuple[str, str], ...]  # (what, short digest): Triton's cache key, then each stage
    pass_rows: tuple | None = None  # passes.PassRow of the passes that changed the IR
    pass_reason: str | None = None  # why there is no pass history (None: not asked for, or rows given)
    pass_history: Any = None  # passes.PassHistory (the timeline's source; two are aligned for a diff)

    @property
    def label(self) -> str:
        return self.report.label

    def stage(self, name: str) -> StageData:
        return next(s for s in self.stages if s.stage == name)


def short_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def gather(item: Any, options=None, *, with_passes: bool = False, stages: tuple[str, ...] = STAGES) -> KernelData:
    """`item`: a reference (`"opt@sm_90"`, `"my.py:kern"`, `"cache:3fa9"`, a kernel object), an
    `engine.Build` or a `report.Report`; `stages`: the stages to show (the others stay out of the page).
    A config too big to launch is still built (as `check` does),
    so that its shared-memory finding shows instead of an error."""
    from ttinspect.api import Report, report_from_build  # the facts' parsers load only when a report is made

    if isinstance(item, Report):
        report = item
    elif isinstance(item, Build):
        report = report_from_build(item)
    else:
        from ttinspect.check import check_reference  # the check rules load only when checking

        report, _ = check_reference(item, options)
    built = report.build
    if built is None:
        raise TTInspectError(f"{report.label}: this Report keeps no build, so its stages cannot be shown")
    source_file = built.source_file
    source_text, source_missing = _read_source(built)
    if built.artifacts.has("glir"):  # a Gluon kernel's first stage is its own IR, in TTIR's place
        stages = tuple("glir" if stage == "ttir" else stage for stage in stages)
    stage_data = tuple(_stage_data(built, stage, source_file) for stage in stages)
    hashes = [("Triton hash", str(built.metadata.get("hash") or "?")[:12])]
    hashes += [(s.stage, s.digest) for s in stage_data if s.digest]
    if built.artifacts.has("cubin"):
        hashes.append(("cubin", short_digest(built.artifacts.data("cubin"))))
    found, reason = _pass_history(built) if with_passes else (None, None)
    rows = tuple(found.rows) if found is not None else None
    return KernelData(built, report, tuple(report.findings), source_file, source_text, source_missing, stage_data,
                      tuple(hashes), rows, reason, found)


def _read_source(built) -> tuple[str | None, str | None]:
    if not built.source_file:
        return None, "its Python source is not known (a Triton cache entry records no file)"
    path = Path(built.source_file)
    if not path.is_file():
        return None, f"its source file {path} is not on this machine (the kernel was compiled elsewhere)"
    try:
        return path.read_text(encoding="utf-8", errors="replace"), None
    except OSError as error:
        return None, f"its source file {path} cannot be read: {error.strerror or error}"


def _stage_data(built, stage: str, source_file: str | None) -> StageData:
    try:
        text = built.artifacts.text(stage)
    except MissingStage as error:
        return StageData(stage, None, str(error))
    except TTInspectError as error:  # SASS without nvdisasm: the other stages still show
        return StageData(stage, None, str(error))
    digest = short_digest(text.encode())
    to_python: tuple[int, ...] = ()
    note = None
    if source_file:
        from ttinspect.source import source_info  # the facts' parsers load only when a report is made

        try:
            info = source_info(stage, text, source_file)
            to_python = tuple((a.source_line or 0) if a.code else 0 for a in info.lines)
            note = info.reason or ("; ".join(info.notes) or None)
        except TTInspectError as error:
            note = f"no source attribution: {error}"
    else:
        note = "no source attribution: the kernel's Python file is not known"
    from ttinspect.dialects.main_loop import main_loop_slice  # the facts' parsers load only when a report is made

    try:
        loop, loop_error = main_loop_slice(stage, text), None
    except TTInspectError as error:
        loop, loop_error = None, str(error)
    return StageData(stage, text, None, to_python, note, loop, loop_error, digest)


def _pass_history(built) -> tuple[Any, str | None]:
    """The pass history (passes.PassHistory), or why there is none to show."""
    try:
        from ttinspect.passes import history  # the pass history's parsers load only when it is asked for
    except ImportError as error:
        return None, f"pass history unavailable in this ttinspect: {error}"
    try:
        return history(built), None
    except TTInspectError as error:
        return None, str(error)
    except Exception as error:  # noqa: BLE001 -- the timeline is an extra: a bug in it must not cost the page
        return None, f"pass history failed: {type(error).__name__}: {error}"

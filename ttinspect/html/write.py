"""`ttinspect html`: one self-contained HTML page of a kernel, or of two side by side.

    from ttinspect.html.write import write_html
    write_html(["naive", "opt"], "naive-vs-opt.html", arch="sm_90")
    write_html(build, "kern.html")            # an engine.Build or a report.Report works too

The page holds the header (kernel, target, Triton, config, hashes), the facts (for two kernels side by
side, each change explained), the `check` findings, registers and occupancy, and every stage highlighted
with the Python line <-> instruction links; the pass timeline; for two kernels also the main-loop diffs
and where the two pass histories part. It fetches nothing: CSS and JavaScript are inline (docs/html.md).

data.py gathers what a kernel's page shows, listing.py highlights, sections.py and page.py write the
HTML (escaping every string that comes from a kernel), output.py writes the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

from ttinspect.errors import UsageError
from ttinspect.files.outputs import check_output, write_atomically
from ttinspect.refs.resolver import RefOptions

__all__ = ["render_html", "write_html"]


def _items(refs_or_builds: Any) -> list:
    if isinstance(refs_or_builds, (str, os.PathLike)) or not isinstance(refs_or_builds, Sequence):
        items = [refs_or_builds]
    else:
        items = list(refs_or_builds)
    if len(items) not in (1, 2):
        raise UsageError(f"an HTML page shows one kernel or two side by side, not {len(items)}")
    return items


def parse_stages(stages: Any) -> tuple[str, ...]:
    """`"ttir,ptx"` or a sequence of stage names -> the stages in pipeline order; UsageError naming a bad one."""
    from ttinspect.html.data import STAGES  # data.py loads every parser: only when a page is made

    if stages is None:
        return STAGES
    names = [n.strip().lower() for n in (stages.split(",") if isinstance(stages, str) else stages)]
    names = [n for n in names if n]
    bad = [n for n in names if n not in STAGES]
    if bad or not names:
        raise UsageError(f"--stages takes a comma-separated list of {', '.join(STAGES)}; got {stages!r}")
    return tuple(s for s in STAGES if s in names)


def render_html(refs_or_builds: Any, *, options=None, arch: str | None = None, passes: bool = True,
                stages: Any = None) -> str:
    """The page as text. `refs_or_builds`: one or two of anything `inspect` takes (a variant such as
    `"opt:num_stages=3@sm_90"`, `"my.py:kern"`, `"cache:3fa9"`, a kernel object), `engine.Build`s or
    `report.Report`s. `options` (`refs.RefOptions`) or `arch` apply to every reference. `passes`: show each
    kernel's pass timeline, and for two where they part (one more compile per kernel the first time).
    `stages`: the stage panes to include (`"ttir,ptx"` or a list; default all five)."""
    from ttinspect.html.data import gather  # as in parse_stages: only when a page is made
    from ttinspect.html.page import render  # as above

    items = _items(refs_or_builds)
    shown = parse_stages(stages)
    if options is None:
        options = RefOptions(arch=arch)
    elif arch is not None:
        raise UsageError("give arch inside options, or arch alone, not both")
    return render([gather(item, options, with_passes=passes, stages=shown) for item in items])


def write_html(refs_or_builds: Any, path: str | os.PathLike, *, options=None, arch: str | None = None,
               force: bool = False, passes: bool = True, stages: Any = None) -> Path:
    """Write the page to `path` and return it. The path is checked first (UsageError for a missing folder,
    or an existing file without `force`), the file written atomically: nothing is overwritten on failure."""
    parse_stages(stages)  # a bad list is refused before anything compiles
    out = check_output(path, force=force, option="-o")
    text = render_html(refs_or_builds, options=options, arch=arch, passes=passes, stages=stages)
    check_output(out, force=force, option="-o")  # the file may have appeared while the kernels compiled
    write_atomically(out, text, force=force)
    return out

"""`objdump -S` for a stage: its text with the kernel's Python lines as comments (`interleave`), and back
(`strip_interleaved`).

Pure: the caller reads the kernel's Python source and passes it as text.
"""

from __future__ import annotations

import posixpath

from ttinspect.dialects.stages import get_stage
from ttinspect.source.attribution import LineAttribution, source_info, strip_column

# What interleave puts after the stage's comment prefix, so inserted lines are recognisable: `//> `.
MARK = "> "


def interleave(stage: str, text: str, kernel_file: str, source_text: str, *, start_line: int = 1,
               end_line: int | None = None) -> str:
    """`text` (lines start_line..end_line, 1-based inclusive; all by default) with the Python line
    printed as a comment before each code line whose attributed line differs from the previous code
    line's, like `objdump -S`:

        //> doc003.py:84: acc = tl.dot(a, b, acc)

    in the stage's comment syntax (`;>` for llir), indented like the line it precedes. Code from
    outside kernel_file without a call site in it gets `//> standard.py:43 (no call site in
    doc003.py)`, code without any location `//> (no source location)`. Lines without code never
    change the line in effect. Every original line is kept, in order: `strip_interleaved` gives the
    original text back. A text without any location gets one leading comment saying why.
    """
    info = source_info(stage, text, kernel_file)
    prefix = get_stage(stage).comment + MARK
    name = posixpath.basename(kernel_file.replace("\\", "/"))
    source = source_text.split("\n")
    lines = text.split("\n")
    last = len(lines) if end_line is None else min(end_line, len(lines))
    first = max(start_line, 1)
    out: list[str] = []
    if info.reason is not None:
        out.append(f"{prefix}no source attribution: {info.reason}")
    current: object = None
    for no in range(first, last + 1):
        raw = lines[no - 1]
        att = info.lines[no - 1]
        if att.code and info.reason is None:
            key = att.source_line if att.source_line is not None else (att.site or "")
            if key != current:
                current = key
                indent = raw[:len(raw) - len(raw.lstrip())]
                out.append(indent + prefix + _describe(att, name, source))
        out.append(raw)
    return "\n".join(out)


def strip_interleaved(stage: str, text: str) -> str:
    """Undo `interleave`: drop the lines it inserted (those starting, after indentation, with `//> `
    or `;> `)."""
    prefix = get_stage(stage).comment + MARK
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith(prefix))


def _describe(att: LineAttribution, name: str, source: list[str]) -> str:
    """The comment `interleave` puts before a code line, without its prefix."""
    if att.source_line is not None:
        if 0 < att.source_line <= len(source):
            return f"{name}:{att.source_line}: {source[att.source_line - 1].strip()}"
        return f"{name}:{att.source_line}: (past the end of the source given)"
    if att.site:
        return f"{strip_column(att.site)} (no call site in {name})"
    return "(no source location)"


"""Data in rich output: what a user's file, a capture or a cache says is shown, never obeyed — by the terminal
(control characters quoted, files/terminal_text.py) nor by rich (its `[markup]` printed as it is).

Two layers. `data()` is for a value put into a markup string or a table cell: quoted and markup-escaped
before rich lays it out, so widths stay right and `[bold]` in a kernel's name prints `[bold]`. And every
console term.console() makes carries `QuoteControls`, a render hook that quotes any control character still
in the text rich is about to write (a value some renderer passed raw): rich's own styles are not in that
text (they are added when the segments are written), so colours stay.
"""

from __future__ import annotations

from typing import Iterable

from rich.console import Console, ConsoleOptions, RenderableType, RenderHook, RenderResult
from rich.markup import escape
from rich.segment import Segment

from ttinspect.files.terminal_text import has_controls, shown, shown_block


def data(text: object) -> str:
    """`text` (one line) for a markup string or a table cell: control characters quoted, markup escaped."""
    return escape(shown(text))


def block(text: object) -> str:
    """As `data`, for text of several lines: its newlines kept."""
    return escape(shown_block(text))


class QuoteControls(RenderHook):
    """Quotes the control characters of every segment of text a console writes (newlines and tabs kept)."""

    def process_renderables(self, renderables: list) -> list:
        return [_Quoted(renderable) for renderable in renderables]


class _Quoted:
    def __init__(self, inner: RenderableType):
        self.inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from quoted_segments(console.render(self.inner, options))


def quoted_segments(segments: Iterable[Segment]) -> Iterable[Segment]:
    for segment in segments:
        if segment.control or not has_controls(segment.text.replace("\n", "")):
            yield segment
        else:
            yield Segment(shown_block(segment.text), segment.style)

"""Text fitted to a width without losing a word: wrapped at spaces, a word longer than its room broken at a
punctuation boundary (`my_mm.py:small#1` / `@sm_89`, `tritongpu-remove-` / `layout-conversions`), and text
that must stay on one line cut at a word boundary with an ellipsis. Every table and every wrapped line of
the terminal views goes through here, so "no line wider than the width, no word cut in its middle" is one
rule, not one per view (tests/test_output_width.py holds it over the tour's commands).

Pure: plain strings in, plain strings (or rich `Text` slices) out; no console.
"""

from __future__ import annotations

import re

# Where a long word may break. Strong: before the part a label or a signature starts (`:kern`, `#2`,
# `@sm_90`) or after a list's separator; weak: inside a part (`tritongpu-`, `m16n8k16.`, `BLOCK_`).
_STRONG = re.compile(r"(?<=[,;])|(?=[:@#(\[{<])")
_WEAK = re.compile(r"(?<=[-_./=|>)\]}×])")
ELLIPSIS = "…"


def _break_at(word: str, room: int) -> int:
    """Where to end the first piece of `word` (longer than `room`): the last strong boundary that fits,
    else the last weak one, else `room` (a word with no boundary at all is folded: nothing is lost)."""
    for pattern in (_STRONG, _WEAK):
        ends = [m.start() for m in pattern.finditer(word, 1, room + 1) if 0 < m.start() <= room]
        if ends:
            return ends[-1]
    return room


def spans(text: str, room: int) -> list[tuple[int, int]]:
    """The (start, end) offsets into `text` of each line of `text` wrapped to `room` columns: lines break
    at spaces, and inside a word only where it is longer than a line, at a punctuation boundary. Runs of
    spaces at a break are dropped; newlines in `text` are kept as breaks; a no-break space (U+00A0) holds
    the words it joins together."""
    room = max(1, room)
    out: list[tuple[int, int]] = []
    offset = 0
    for paragraph in text.split("\n"):
        words = [(m.start() + offset, m.end() + offset) for m in re.finditer(r"[^ \t]+", paragraph)]
        if words and words[0][0] > offset and words[0][1] - offset <= room:  # a paragraph's indent is kept
            words[0] = (offset, words[0][1])
        line: tuple[int, int] | None = None
        for start, end in words:
            if line is not None and end - line[0] <= room:
                line = (line[0], end)
                continue
            if line is not None:
                out.append(line)
                line = None
            while end - start > room:  # a word longer than a line: its pieces, each on a line
                cut = _break_at(text[start:end], room)
                out.append((start, start + cut))
                start += cut
            line = (start, end)
        out.append(line if line is not None else (offset, offset))
        offset += len(paragraph) + 1
    return out


def wrap(text: str, room: int, *, indent: str = "", subsequent: str | None = None) -> list[str]:
    """`text` as lines of at most `room` columns (indents included), broken at word or punctuation
    boundaries; `subsequent`: the indent of the lines after the first (default: `indent`)."""
    subsequent = indent if subsequent is None else subsequent
    first = spans(text, room - len(indent))
    if len(first) <= 1 or len(subsequent) == len(indent):
        return [(indent if k == 0 else subsequent) + text[a:b] for k, (a, b) in enumerate(first)]
    head = first[0]
    rest = text[head[1]:].lstrip(" ")
    return [indent + text[head[0]:head[1]]] + [subsequent + rest[a:b] for a, b in spans(rest, room - len(subsequent))]


def wrap_text(text, room: int):
    """A rich `Text` wrapped like `wrap` (its styles kept), its lines joined by newlines: a table cell that
    rich then lays out as it is."""
    from rich.text import Text

    pieces = [text[a:b] for a, b in spans(text.plain, room)]
    return Text("\n").join(pieces)


def cut(text: str, room: int) -> str:
    """`text` on one line of at most `room` columns: whole, or cut at a word boundary and ended with an
    ellipsis (a first word longer than the room is cut at a punctuation boundary, else where it must)."""
    text = " ".join(text.split())
    if len(text) <= room:
        return text
    if room <= 1:
        return ELLIPSIS[:room]
    end = text.rfind(" ", 0, room)  # at most room - 1 characters, then the ellipsis
    if end <= 0:
        end = _break_at(text, room - 1)
    return text[:end].rstrip(" ,;:") + ELLIPSIS


def cut_middle(text: str, room: int) -> str:
    """As `cut`, keeping the end too (two titles that differ only in their last words stay apart): the
    first words and the last words that fit, an ellipsis between them, each part ending at a word."""
    text = " ".join(text.split())
    if len(text) <= room or room < 12:
        return cut(text, room)
    words = text.split(" ")
    tail: list[str] = []
    while words and len(" ".join([words[-1], *tail])) <= (room - 1) * 2 // 5:
        tail.insert(0, words.pop())
    head = cut(" ".join(words), room - 1 - len(" ".join(tail)) - (1 if tail else 0))
    return head.rstrip(ELLIPSIS).rstrip() + ELLIPSIS + (" " + " ".join(tail) if tail else "")


def fits(lines: list[str], width: int) -> bool:
    return all(len(line) <= width for line in lines)


def shares(natural: list[int], room: int, least: list[int]) -> list[int]:
    """Widths for columns sharing `room`: each its natural width when all fit; else the room is split
    evenly, a column needing less than its share leaving the rest to the others; none below its `least`."""
    widths = list(natural)
    pending = sorted(range(len(natural)), key=lambda i: natural[i])
    left = room
    while pending:
        share = left // len(pending)
        first = pending[0]
        if natural[first] <= share:
            left -= natural[first]
            pending.pop(0)
            continue
        for index in pending:
            widths[index] = max(least[index], share)
        break
    return widths

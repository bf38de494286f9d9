"""A boxed table that fits the width it is given: no line wider, no last column cropped without its
border, no word folded in its middle (render/fit.py does the wrapping)."""

from __future__ import annotations

from rich.table import Table

from ttinspect.render import fit


def fitted_table(heads: list[str], rows, width: int, flexible: set[int], right: frozenset[int] | set[int] = frozenset(),
                 title=None):
    """A boxed table as wide as `width` at most: the short columns (index, stage, counts) at their natural
    width, the others sharing the rest, every cell and heading wrapped at word or punctuation boundaries
    (fit.py) — rich would fold a pass's name mid-word and crop the last column without a border. `rows`:
    (cells as rich `Text`, the row's style); `right`: the columns justified right (numbers); `title`: a
    rich `Text` over the table, wrapped to the width."""
    natural = [max([len(head)] + [max(len(part) for part in cells[i].plain.split("\n")) for cells, _ in rows])
               for i, head in enumerate(heads)]
    fixed = sum(natural[i] for i in range(len(heads)) if i not in flexible)
    room = width - (3 * len(heads) + 1) - fixed  # each column's padding and border, and the left border
    order = sorted(flexible)
    given = fit.shares([natural[i] for i in order], room, [max(6, min(natural[i], 12)) for i in order])
    widths = [dict(zip(order, given, strict=True)).get(i, natural[i]) for i in range(len(heads))]
    table = Table(title=fit.wrap_text(title, width) if title is not None else None, title_justify="left",
                  show_lines=False)
    for i, head in enumerate(heads):
        table.add_column("\n".join(fit.wrap(head, widths[i])), width=widths[i], no_wrap=True,
                         justify="right" if i in right else "left")
    for cells, style in rows:
        table.add_row(*(fit.wrap_text(cell, widths[i]) for i, cell in enumerate(cells)), style=style)
    return table

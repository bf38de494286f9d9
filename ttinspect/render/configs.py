"""The table of autotune configs (`report REF --config all`), readable at 80 columns.

A library's autotune list is often 16 configs over 8 keys, half of which never change. So: the keys every
config shares are said once above the table; only the keys that vary are columns, under short names
(`BM` for BLOCK_SIZE_M, a long name broken after its underscores); the rows are numbered (`#3`) under one
title naming the kernel; a column is as wide as its widest cell and no cell is ever folded. Columns are
two spaces apart, one where that fits and two do not; a table that does not fit even so becomes one block
per config (its keys on a line, its facts wrapped under it).

Under it: why a fact is unknown, the configs that do not fit the GPU, and the errors of the configs that
failed — each distinct message once, whole, with the configs that hit it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.text import Text

from ttinspect.facts.model import format_value
from ttinspect.kernel.variants import config_value_text
from ttinspect.render import fit, term
from ttinspect.render.glance import MEANING_STYLE, print_lines
from ttinspect.render.names import label_parts
from ttinspect.render.tables import SHORT_KEYS

HEADERS = {"registers": "regs", "spills": "spills", "shared_memory": "shared B", "fits": "fits",
           "blocks_per_sm": "CTAs/SM", "occupancy": "occupancy", "pipeline_depth": "depth",
           "tensor_core_path": "tensor cores"}
_HEADS = {**HEADERS, "shared_memory": "shared bytes"}  # broken over two lines: "B" alone would say nothing
_LEFT_ALIGNED = {"tensor_core_path"}
_HEAD_LINES = 3  # a header taller than this widens its column instead


@dataclass(frozen=True)
class _Column:
    head: tuple[str, ...]  # the header's lines, bottom-aligned
    cells: tuple[tuple[str, str], ...]  # (text, style) per row
    width: int
    left: bool = False


def _fact_cell(row, key: str) -> tuple[str, str]:
    value = row.facts.get(key)
    if value is None:
        return ("n/a", "") if row.reasons.get(key, "").startswith("not applicable") else ("?", MEANING_STYLE)
    if key == "occupancy" and isinstance(value, float):
        return f"{value:.0%}", ""
    if key == "fits":
        return ("yes", "") if value else ("no", "red")
    if key == "spills" and value:
        return str(value), "yellow"
    return format_value(value), ""


def _names(rows) -> tuple[str | None, list[str]]:
    """The name the rows share (said once, in the title) and each row's own (`#3`); where they are not
    the numbered configs of one kernel, no shared name and each row's whole label."""
    parts = [label_parts(row.label) for row in rows]
    numbered = [p for p in parts if p is not None and p[1]]
    if len(numbered) != len(rows) or len({base for base, _, _ in numbered}) != 1:
        return None, [row.label for row in rows]
    name = numbered[0][0]
    # settings every label carries (--set) belong to the name; a shipped variant's label names the keys its
    # config changes (`l2_g0:GROUP_SIZE_M=8#2`), which the columns show
    if len({items for _, _, items in numbered}) == 1 and numbered[0][2]:
        name += ":" + ",".join(numbered[0][2])
    return name, [f"#{number}" for _, number, _ in numbered]


def _keys(rows) -> tuple[dict[str, str], list[str]]:
    """(the keys with one value in every config, in order; the keys whose value varies)."""
    configs = [{k: config_value_text(v) for k, v in row.config.items()} for row in rows if not row.error]
    keys = list(dict.fromkeys(k for config in configs for k in config))
    same = {k: configs[0][k] for k in keys if all(config.get(k) == configs[0].get(k) for config in configs)}
    return same, [k for k in keys if k not in same]


def _head_lines(name: str, width: int) -> tuple[str, ...]:
    """A header broken after underscores or spaces, or before a slash, into lines of at most `width`."""
    pieces = [p for p in re.split(r"(?<=_)|(?<= )|(?=/)", name) if p]
    lines: list[str] = []
    for piece in pieces:
        if lines and len(lines[-1] + piece.rstrip()) <= width:
            lines[-1] += piece
        else:
            lines.append(piece)
    return tuple(line.strip() for line in lines)


def _column(head: str, cells: list[tuple[str, str]], left: bool = False) -> _Column:
    pieces = [len(p.strip()) for p in re.split(r"(?<=_)|(?<= )|(?=/)", head)]
    width = max([len(text) for text, _ in cells] + pieces)
    while len(_head_lines(head, width)) > _HEAD_LINES:
        width += 1
    return _Column(_head_lines(head, width), tuple(cells), width, left)


def _columns(rows, ids: list[str], varying: list[str]) -> list[_Column]:
    columns = [_column("", [(i, "bold") for i in ids], left=True)]
    for key in varying:
        cells = [(config_value_text(row.config[key]) if key in row.config else "", "") for row in rows]
        columns.append(_column(SHORT_KEYS.get(key, key), cells))
    for key, head in _HEADS.items():
        cells = [("", "") if row.error else _fact_cell(row, key) for row in rows]
        columns.append(_column(head, cells, left=key in _LEFT_ALIGNED))
    return columns


def _table_lines(columns: list[_Column], rows, failed_marks: dict[int, str], gap: int) -> list[Text]:
    height = max(len(c.head) for c in columns)
    lines = []
    for level in range(height):
        line = Text()
        for k, column in enumerate(columns):
            offset = level - (height - len(column.head))
            text = column.head[offset] if offset >= 0 else ""
            line.append(" " * (gap if k else 0))
            line.append(text.ljust(column.width) if column.left else text.rjust(column.width), style="bold")
        line.rstrip()
        lines.append(line)
    keys_end = len(columns) - len(HEADERS)
    for r, row in enumerate(rows):
        line = Text()
        for k, column in enumerate(columns[:keys_end] if row.error else columns):
            text, style = column.cells[r]
            line.append(" " * (gap if k else 0))
            line.append(text.ljust(column.width) if column.left else text.rjust(column.width), style=style)
        if row.error:
            line.append(" " * gap + f"failed: error {failed_marks[r]} below", style="red")
        line.rstrip()
        lines.append(line)
    return lines


def _block_lines(columns: list[_Column], rows, varying: list[str], failed_marks: dict[int, str],
                 width: int) -> list[Text]:
    """One block per config, for a width no table fits: `#3  BM=64 BN=128 ...`, its facts wrapped under it."""
    ids = columns[0].cells
    room = max(len(text) for text, _ in ids) + 2
    lines = []
    for r, row in enumerate(rows):
        keys = " ".join(f"{SHORT_KEYS.get(k, k)}={config_value_text(row.config[k])}" for k in varying
                        if k in row.config)
        if row.error:
            keys = (keys + "  " if keys else "") + f"failed: error {failed_marks[r]} below"
        head = fit.wrap(keys, width, indent=ids[r][0].ljust(room), subsequent=" " * room) or [ids[r][0]]
        lines += [Text(piece, style="red" if row.error and k else "") for k, piece in enumerate(head)]
        if row.error:
            continue
        # an item (`tensor cores wgmma`) breaks only where it must: its own spaces are kept from wrapping
        facts = "\xa0· ".join(f"{_HEADS[key]} {_fact_cell(row, key)[0]}".replace(" ", "\xa0") for key in HEADERS)
        lines += [Text(piece.replace("\xa0", " ")) for piece in fit.wrap(facts, width, indent=" " * room)]
    return lines


def _wrapped(text: str, width: int, style: str = "") -> list[Text]:
    return [Text(piece, style=style) for piece in fit.wrap(text, width, subsequent="  ")]


def _ranges(ids: list[str]) -> str:
    """`#1 #2 #3 #5` -> `#1-#3, #5` (ids that are not numbers are listed as they are)."""
    if not all(i[1:].isdigit() for i in ids):
        return ", ".join(ids)
    spans: list[list[int]] = []
    for n in sorted(int(i[1:]) for i in ids):
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(f"#{a}" if a == b else f"#{a}-#{b}" for a, b in spans)


def _error_lines(errors: dict[str, list[str]], failed: int, total: int, width: int) -> list[Text]:
    """Each distinct error once, whole (its own line breaks kept, wrapped at the width), after the configs
    that hit it."""
    plural = "s" if len(errors) > 1 else ""
    lines = [Text(f"failed: {failed} of {total} configs, {len(errors)} distinct error{plural}", style="bold red")]
    for mark, (message, ids) in enumerate(errors.items(), start=1):
        lines.append(Text(f"[{mark}] {_ranges(ids)}", style="red"))
        for source_line in message.splitlines() or [""]:
            indent = "    " + " " * (len(source_line) - len(source_line.lstrip()))
            lines += [Text(piece) for piece in fit.wrap(source_line.strip(), width, indent=indent,
                                                        subsequent=indent + "  ")]
    return lines


def config_lines(rows, width: int) -> list[Text]:
    """The whole view as lines no wider than `width` (a word longer than the width excepted)."""
    name, ids = _names(rows)
    target = next((r.target for r in rows if r.target), None)
    versions = list(dict.fromkeys(r.triton_version for r in rows if r.triton_version))
    title = (f"{len(rows)} autotune config{'s' * (len(rows) != 1)}" + (f" of {name}" if name else "")
             + (f" · {target}" if target else "") + (f" · Triton {', '.join(versions)}" if versions else ""))
    lines = _wrapped(title, width, "bold")
    for line in dict.fromkeys(r.device_line for r in rows if r.device_line):
        lines += _wrapped(line, width, "dim")
    errors: dict[str, list[str]] = {}
    for row, row_id in zip(rows, ids, strict=True):
        if row.error:
            errors.setdefault(row.error.strip(), []).append(row_id)
    marks = {r: f"[{list(errors).index(row.error.strip()) + 1}]" for r, row in enumerate(rows) if row.error}
    notes = [line for note in sorted({row.note.partition("; ")[2] for row in rows if "; " in row.note} - {""})
             for line in _wrapped(note, width, MEANING_STYLE)]
    if len(marks) == len(rows):  # nothing compiled: no table, only what went wrong
        return lines + notes + _error_lines(errors, len(marks), len(rows), width)
    same, varying = _keys(rows)
    if same:
        lines += _wrapped("same in every config: " + " ".join(f"{k}={v}" for k, v in same.items()), width,
                          MEANING_STYLE)
    short = [f"{SHORT_KEYS[k]} = {k}" for k in varying if k in SHORT_KEYS and SHORT_KEYS[k] not in ("warps", "stages")]
    if short:
        lines += _wrapped("(" + ", ".join(short) + ")", width, MEANING_STYLE)
    columns = _columns(rows, ids, varying)
    natural = sum(c.width for c in columns)
    gap = next((g for g in (2, 1) if natural + g * (len(columns) - 1) <= width), None)
    if gap is None:
        lines += _block_lines(columns, rows, varying, marks, width)
    else:
        lines += _table_lines(columns, rows, marks, gap)
    lines += notes
    unknown = sorted({(k, v) for row in rows for k, v in row.reasons.items()
                      if v and k != "fits" and not v.startswith("not applicable")})
    for key, reason in unknown:
        lines += _wrapped(f"? {_HEADS.get(key, key)}: {reason}", width, MEANING_STYLE)
    for row, row_id in zip(rows, ids, strict=True):
        if "fits" in row.reasons:
            lines += _wrapped(f"{row_id}: {row.reasons['fits']}", width, "red")
    if errors:
        lines += _error_lines(errors, len(marks), len(rows), width)
    return lines


def config_table(rows) -> None:
    print_lines(config_lines(rows, term.width()))

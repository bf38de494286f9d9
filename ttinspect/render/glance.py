"""The short view of a set of facts, read at a glance: one line per fact that says something, the rest
folded into a line per group. Shared by `report` and `diff`; pure text layout (rich `Text` lines), no I/O.

What is folded, by rules that hold for every kernel (never per kernel):
- facts that found nothing (0, none, no, an empty tally) — one "none:" line per group naming them;
- facts that do not apply ("n/a: …") — one line per group and reason;
- detail facts (DETAIL below): whole-kernel totals whose per-iteration counterpart is shown, and IR op
  tallies. They are one flag away (`--explain` / `--all`), counted at the foot.
A fact that is unknown is never folded: its reason is the line's meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from ttinspect.render import fit, term

# Detail, not headline: each is implied by a shown fact (threads = 32 × num_warps; a kernel-wide count
# beside its per-iteration count; warps per SM beside CTAs per SM) or is a raw tally of IR operations.
DETAIL = frozenset({
    "threads", "commit_groups", "async_copies", "setp", "rem_div", "ttg_ops", "ttgir_loop_ops", "layouts",
    "warps_per_sm", "sass_mma", "sass_loop_tensor_core_ops", "sass_ldgsts", "sass_ldgdepbar", "sass_bar_sync",
    "sass_tcgen05_ops", "sass_mbarrier_ops", "sass_tma", "sass_global_loads", "sass_local_memory",
    # the SASS form of a synchronisation the pipeline / tensor-core groups show from the PTX, one for one
    "sass_loop_ldgdepbar", "sass_loop_depbar", "sass_drain_depbar", "sass_loop_bar_sync",
    "sass_loop_warpgroup_arrive", "sass_loop_warpgroup_wait",
})

GROUP_STYLE, UNKNOWN_STYLE, MEANING_STYLE, CHANGED_STYLE = "bold", "italic", "dim", "yellow"


def is_nothing(value) -> bool:
    """0, none, no, an empty tally: the fact looked and found nothing."""
    return value is not None and (value is False or (not isinstance(value, bool) and value in (0, (), "", "none")))


def not_applicable(fact) -> bool:
    return fact.value is None and bool(fact.unknown) and fact.unknown.startswith("not applicable")


@dataclass(frozen=True)
class Columns:
    """Widths of the columns of a fact table; `meaning` is 0 when the width leaves no useful room."""

    title: int
    values: tuple[int, ...]
    meaning: int

    @classmethod
    def fit(cls, width: int, titles, values_per_column, meaning: bool = True) -> Columns:
        longest_title = max((len(t) for t in titles), default=8)
        n = len(values_per_column)
        caps = [max((len(v) for v in column), default=4) for column in values_per_column]
        share = max(10, int(width * (0.27 if n == 1 else 0.24)))
        widths = [max(4, min(cap, share)) for cap in caps]
        title = min(longest_title, max(16, int(width * 0.36)))
        rest = width - 2 - title - sum(w + 2 for w in widths) - 2
        if meaning and rest >= 28:
            # a title wraps rather than being cut: what the meaning column can spare keeps it on one line
            more = max(0, min(longest_title - title, rest - 28))
            return cls(title + more, tuple(widths), rest - more)
        # No room for a useful meaning (about 100 columns or fewer): whole titles, wider values.
        title = min(longest_title, max(16, int(width * 0.45)))
        room = width - 2 - title - sum(w + 2 for w in widths)
        if room < 0:
            widths = [max(4, w + room // n - 1) for w in widths]
        else:
            widths = [min(cap, w + room // n) for w, cap in zip(widths, caps, strict=True)]
        return cls(title, tuple(widths), 0)


def brief(explanation: str) -> str:
    """The first clause of an explanation: what fits on one line of a glance."""
    for mark in ("; ", ". "):
        explanation = explanation.split(mark, 1)[0]
    return explanation


def wrap(text: str, room: int) -> list[str]:
    """Values break after a comma (a tally's items stay whole) and inside an item only when it must, at a
    punctuation boundary (fit.py)."""
    return fit.wrap(text, max(4, room)) or [""]


def row(cols: Columns, title: str, values: list[tuple[str, str]], meaning: str = "", *,
        indent: str = "  ", title_style: str = "") -> list[Text]:
    """One fact: title, its value column(s), each wrapped in its column (a title too long for its column
    goes on under itself: two facts that differ in their last words stay apart, and no word is cut), then
    the meaning on the first line, cut at a word to one line (`--explain` has it whole)."""
    titles = wrap(title, cols.title)
    wrapped = [wrap(value, w) for (value, _), w in zip(values, cols.values, strict=True)]
    height = max(len(titles), *(len(w) for w in wrapped))
    lines = []
    for i in range(height):
        line = Text(indent)
        line.append((titles[i] if i < len(titles) else "").ljust(cols.title), style=title_style)
        for (_, style), column, w in zip(values, wrapped, cols.values, strict=True):
            line.append("  ")
            line.append((column[i] if i < len(column) else "").ljust(w), style=style)
        if i == 0 and cols.meaning and meaning:
            line.append("  ")
            line.append(fit.cut(meaning, cols.meaning), style=MEANING_STYLE)
        line.rstrip()
        lines.append(line)
    return lines


def folded(label: str, titles: list[str], width: int, indent: str = "  ") -> list[Text]:
    """`none: a, b, c` wrapped to the width with a hanging indent."""
    head = f"{indent}{label}: "
    lines = fit.wrap(", ".join(titles), width, indent=head, subsequent=" " * len(head))
    out = []
    for k, text in enumerate(lines):
        line = Text()
        if k == 0:
            line.append(head, style=MEANING_STYLE)
            line.append(text[len(head):], style=MEANING_STYLE)
        else:
            line.append(text, style=MEANING_STYLE)
        out.append(line)
    return out


def heading(text: str, width: int, style: str = "bold") -> list[Text]:
    """A title line, wrapped (never wider than the width, whatever the labels)."""
    return [Text(piece, style=style) for piece in fit.wrap(text, width, subsequent="  ")]


def group_line(name: str, note: str = "") -> Text:
    line = Text(name, style=GROUP_STYLE)
    if note:
        line.append(f"  {note}", style=MEANING_STYLE)
    return line


def print_lines(lines: list[Text]) -> None:
    console = term.console()
    for line in lines:
        console.print(line, no_wrap=True, overflow="ignore", crop=False, soft_wrap=True)


def columns_that_fit(natural: list[int], width: int, priority: list[int], body: list[list[str]] | None = None,
                     unique: int | None = None) -> set[int]:
    """Which columns of a boxed table fit in `width`: each takes its natural width plus 3 (padding and
    its border); columns are added in `priority` order while they fit. A table narrower than its cells
    is folded into unreadable slivers by rich; dropping the least important columns (named under the
    table) keeps the rest whole.

    With the cells (`body`), rows must stay told apart: where two rows read the same in the columns kept
    (the `unique` column, an id, aside) and a dropped column tells them apart, it comes in, in place of
    the least important kept columns that do not — thirty `matmul` rows of a cache differ by target."""
    def used(columns) -> int:
        return 1 + sum(natural[i] + 3 for i in columns)  # 1: the left border

    kept: set[int] = set()
    for index in priority:
        if used(kept | {index}) <= width or not kept:
            kept.add(index)
    if body is None:
        return kept

    def kinds(columns) -> int:  # how many different rows the columns show
        return len({tuple(cells[i] for i in sorted(columns) if i != unique) for cells in body})

    for index in [i for i in priority if i not in kept]:
        candidate = kept | {index}
        if kinds(candidate) <= kinds(kept):
            continue
        for spare in reversed(priority[2:]):  # the least important first; the first two always stay
            if used(candidate) <= width:
                break
            if spare in candidate and spare != index and kinds(candidate - {spare}) == kinds(candidate):
                candidate.discard(spare)
        if used(candidate) <= width:
            kept = candidate
    return kept


def natural_widths(heads: list[str], body: list[list[str]]) -> list[int]:
    """Each column's widest cell (rich markup not counted), its head included."""
    from rich.markup import render

    return [max([len(head)] + [len(render(row[i]).plain) for row in body]) for i, head in enumerate(heads)]


def print_left_out(console, heads: list[str], kept: set[int], flags: str = "--width, --json") -> None:
    """Under a table that dropped columns: which, and how to see them."""
    left_out = [head for i, head in enumerate(heads) if i not in kept]
    if left_out:
        text = f"left out at {console.width} columns: {', '.join(left_out)} ({flags})"
        console.print(Text("\n".join(fit.wrap(text, console.width)), style="dim"), no_wrap=True, crop=False)


def device_lines(reports, width: int) -> list[Text]:
    """The virtual device the kernels' code asked at import (docs/virtual-device.md), once per distinct one;
    and how a captured kernel's run saw the device when not on the GPU (`capture --as`, the interpreter's CPU
    branches: capture/format.py's Header.made, carried in the build's note)."""
    lines = list(dict.fromkeys(r.device_line for r in reports if r.device_line))
    lines += list(dict.fromkeys(part for r in reports for part in _note_of(r).split("; ")
                                if part.startswith(CAPTURE_MADE)))
    return [Text(piece, style="dim") for line in lines for piece in fit.wrap(line, width)]


CAPTURE_MADE = ("captured as ", "captured under Triton's interpreter")  # Header.made()'s two beginnings


def _note_of(report) -> str:
    build = getattr(report, "build", None)
    return str(getattr(build, "note", "") or "")


def print_device_lines(console, lines) -> None:
    """Under a table: each distinct device line (`build_device_line`'s, a listing's), once, dim, as written."""
    for line in dict.fromkeys(line for line in lines if line):
        console.print(line, style="dim", markup=False)


def origin_lines(reports, width: int) -> list[Text]:
    """Where a package module's kernel was read from (`liger_kernel.ops.rms_norm from .../rms_norm.py`): a
    checkout beside an installed copy gives the same name and other facts."""
    seen = []
    for report in reports:
        build = report.build
        module = report.label.partition(":")[0]
        if build is None or not build.source_file or module.endswith(".py") or "." not in module:
            continue
        line = f"{module} from {build.source_file}"
        if line not in seen:
            seen.append(line)
    return [Text(piece, style="dim") for line in seen for piece in fit.wrap(line, width)]

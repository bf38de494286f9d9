"""`ttinspect report` as text: the short view (a line per fact that says something, see glance.py) or,
with --explain, every fact with its whole explanation under it. Pure layout; `print_report` prints."""

from __future__ import annotations

from rich.text import Text

from ttinspect.files.terminal_text import shown
from ttinspect.render.glance import (DETAIL, brief, heading, UNKNOWN_STYLE, MEANING_STYLE, Columns, folded,
                                     group_line, is_nothing,
                     not_applicable, row)
from ttinspect.render import fit, term
from ttinspect.render.glance import device_lines, origin_lines, print_lines


def title_lines(report, width: int) -> list[Text]:
    lines = heading(shown(f"{report.label} · {report.target} · Triton {report.triton_version}"), width)
    return lines + origin_lines([report], width) + device_lines([report], width)



def _value(fact) -> tuple[str, str]:
    if fact.value is None and not not_applicable(fact):
        return "unknown", UNKNOWN_STYLE
    return fact.display(), ""


def _meaning(fact) -> str:
    if fact.value is None and fact.unknown and not not_applicable(fact):
        return fact.unknown  # the reason is what the reader needs on that line
    return brief(fact.explanation)


def _unknown(fact) -> str | None:
    """Why a fact is unknown; None for a known fact or one that does not apply."""
    return fact.unknown if fact.value is None and fact.unknown and not not_applicable(fact) else None


def _shared_unknowns(facts) -> dict[str, int]:
    """The reasons two or more facts share for being unknown (a Gluon kernel has no TTIR: seven facts),
    numbered: each is said once, the facts folded into a line per group that points at it."""
    counts: dict[str, int] = {}
    for fact in facts:
        if (reason := _unknown(fact)) is not None:
            counts[reason] = counts.get(reason, 0) + 1
    return {reason: k for k, reason in enumerate((r for r, n in counts.items() if n > 1), start=1)}


_IN_HEADER = ("line", "role", "partition")  # a loop group's title says these: "loop 2 · line 35 · K loop"


def _busy_loop_groups(report) -> set[str]:
    """The groups of loops that do something (load, or hold dot ops)."""
    busy = set()
    for loop in getattr(report, "loops", []):
        facts = loop["facts"]
        if any(name in facts and facts[name].value for name in ("loads", "dots", "tensor_core_ops", "async_copies")):
            busy.add(loop["group"])
    return busy


def short_lines(report, width: int) -> list[Text]:
    groups = report.by_group()
    # A group per loop that does something — unless only one does: the kernel's facts are that loop's.
    busy = _busy_loop_groups(report)
    loop_groups = {loop["group"] for loop in getattr(report, "loops", [])}
    alone = next(iter(busy)) if len(busy) == 1 else None  # its group: a heading and one line, no repeat
    groups = [(g, facts if g not in loop_groups else [f for f in facts if f.key.partition(".")[2] not in _IN_HEADER])
              for g, facts in groups if g not in loop_groups or (g in busy and len(busy) > 1)]
    shared = _shared_unknowns([f for _, facts in groups for f in facts if f.key not in DETAIL])
    shown = {g: [f for f in facts if f.key not in DETAIL and not is_nothing(f.value) and not not_applicable(f)
                 and _unknown(f) not in shared]
             for g, facts in groups}
    everything = [f for facts in shown.values() for f in facts]
    cols = Columns.fit(width, [f.title for f in everything], [[_value(f)[0] for f in everything]])
    lines = title_lines(report, width)
    hidden = 0
    for group, facts in groups:
        lines.append(group_line(group))
        for fact in shown[group]:
            value = _value(fact)
            if not cols.meaning and value[0] == "unknown":  # no meaning column: the reason goes with the value
                value = (f"unknown: {_meaning(fact)}", value[1])
            lines += row(cols, fact.title, [value], _meaning(fact))
        nothing = [f.title for f in facts if f.key not in DETAIL and is_nothing(f.value)]
        if nothing:
            lines += folded("none", nothing, width)
        reasons: dict[str, list[str]] = {}
        for f in facts:
            if f.key not in DETAIL and not_applicable(f):
                reasons.setdefault(f.display(), []).append(f.title)
        for reason, titles in reasons.items():
            lines += folded(reason, titles, width)
        for reason, number in shared.items():
            titles = [f.title for f in facts if f.key not in DETAIL and _unknown(f) == reason]
            if titles:
                lines += folded(f"unknown [{number}]", titles, width)
        hidden += sum(1 for f in facts if f.key in DETAIL)
    if alone is not None:
        lines.append(group_line(alone))
        note = "the only loop that loads or computes: the facts above are its facts"
        lines += [Text(piece, style=MEANING_STYLE)
                  for piece in fit.wrap(note, max(20, width), indent="  ")]
    for reason, number in shared.items():  # said once, however many facts it leaves unknown
        lines += [Text(piece, style=MEANING_STYLE) for piece in fit.wrap(f"[{number}] unknown: {reason}", width,
                                                                         subsequent="    ")]
    more = f"{hidden} more facts and " if hidden else ""
    lines += heading(f"--explain: {more}every fact's full explanation", width, MEANING_STYLE)
    return lines


def explained_lines(report, width: int) -> list[Text]:
    """Every fact: title and value, then its explanation wrapped under it."""
    facts = list(report.facts)
    cols = Columns.fit(width, [f.title for f in facts], [[_value(f)[0] for f in facts]], meaning=False)
    lines = title_lines(report, width)
    for group, group_facts in report.by_group():
        lines.append(group_line(group))
        for fact in group_facts:
            lines += row(cols, fact.title, [_value(fact)])
            text = fact.explanation
            if fact.value is None and fact.unknown:
                text = f"{fact.display()}. {text}"
            for piece in fit.wrap(text, max(26, width), indent="      "):
                lines.append(Text(piece, style=MEANING_STYLE))
    return lines


def print_report(report, *, explain: bool = False) -> None:
    width = term.width()
    print_lines(explained_lines(report, width) if explain else short_lines(report, width))

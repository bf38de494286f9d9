"""`ttinspect diff` as text: the facts that changed first (grouped, side by side), one explanation per
change, and the unchanged facts folded into a count — `--all` lists them and explains the detail facts
(glance.DETAIL) that changed, which the short view only names."""

from __future__ import annotations

from rich.text import Text

from ttinspect.files.terminal_text import shown
from ttinspect.facts.model import format_value, group_order
from ttinspect.render.glance import (CHANGED_STYLE, DETAIL, MEANING_STYLE, UNKNOWN_STYLE, Columns, folded,
                                     group_line, heading, is_nothing, row)
from ttinspect.render import fit, term
from ttinspect.render.glance import device_lines, origin_lines, print_lines
from ttinspect.render.names import side_names


def _side(fact) -> tuple[str, str]:
    return fact.display(), UNKNOWN_STYLE if fact.value is None else ""


def _changed(fa, fb) -> bool:
    return fa.value != fb.value or (fa.value is None and fa.unknown != fb.unknown)


def _label(report, other=None) -> str:
    """`opt@sm_90`; with the Triton release when the two sides were compiled by different ones."""
    label = f"{report.label}@{report.target}"
    if other is not None and other.triton_version != report.triton_version:
        label += f" · {report.triton_version}"
    return shown(label)


def diff_lines(result, width: int, *, show_all: bool = False) -> list[Text]:
    a, b = result.a, result.b
    order = sorted(result.rows, key=lambda pair: group_order(pair[0].group))
    changed = [(fa, fb) for fa, fb in order if _changed(fa, fb)]
    headline = [(fa, fb) for fa, fb in changed if show_all or fa.key not in DETAIL]
    detail = [fa.title for fa, fb in changed if not show_all and fa.key in DETAIL]
    same = [(fa, fb) for fa, fb in order if not _changed(fa, fb)]
    shown = headline + (same if show_all else [])
    names = side_names(a, b)
    values = [[_side(fa)[0] for fa, _ in shown], [_side(fb)[0] for _, fb in shown]]
    cols = Columns.fit(width, [fa.title for fa, _ in shown], [v + [n] for v, n in zip(values, names.plain,
                                                                                           strict=True)], meaning=False)
    # A side's label that would wrap in its column, or settings both labels repeat: each side is named by
    # what tells it apart, what they share is said once (names.py)
    short = names.short and (names.shared or any(len(n) > w for n, w in zip(names.plain, cols.values, strict=True)))
    la, lb = names.sides if short else names.plain
    if short:
        cols = Columns.fit(width, [fa.title for fa, _ in shown], [values[0] + [la], values[1] + [lb]], meaning=False)
    versions = a.triton_version if a.triton_version == b.triton_version else f"{a.triton_version} / {b.triton_version}"
    subject = names.title() if short else f"{_label(a)} vs {_label(b)}"
    lines = heading(f"{subject} · Triton {versions} · {len(changed)} of {len(order)} facts differ", width)
    lines += origin_lines([a, b], width) + device_lines([a, b], width)
    if not changed:
        return lines + [Text("No fact differs.")] + (_shared_lines(names.shared, width) if short else [])
    lines += row(cols, "", [(la, "bold"), (lb, "bold")])
    lines += _grouped(cols, headline, changed_style=CHANGED_STYLE)
    if detail:
        lines += folded("detail facts also differ", detail, width)
    lines += heading("What changed, and what it means", width)
    for change in result.changes:
        if not show_all and change.key in DETAIL:
            continue
        head = f"• {change.title}: "
        body = fit.wrap(head + _without_values(change, result), width, subsequent="  ")
        for k, piece in enumerate(body):
            line = Text()
            if k == 0:
                line.append(piece[:len(head)], style=CHANGED_STYLE)
                line.append(piece[len(head):])
            else:
                line.append(piece)
            lines.append(line)
        lines += _evidence(change, a, b, width, (la, lb))
    if show_all:
        if same:
            lines.append(Text(f"Unchanged ({len(same)})", style="bold"))
            lines += _grouped(cols, same)
    else:
        more = f" and explains the {len(detail)} detail changes" if detail else ""
        lines += heading(f"{len(same)} facts are the same — --all lists them{more}", width, MEANING_STYLE)
    return lines + (_shared_lines(names.shared, width) if short else [])


def _shared_lines(shared: tuple[str, ...], width: int) -> list[Text]:
    """The settings both sides were given, left out of their names: once, at the foot, wrapped."""
    if not shared:
        return []
    return [Text(piece, style=MEANING_STYLE) for piece in fit.wrap("both sides: " + " ".join(shared), width,
                                                                    subsequent="  ")]


def _evidence(change, a, b, width: int, names: tuple[str, str]) -> list[Text]:
    """Where each side's code shows the changed fact (evidence.py), one line per side; none without builds.
    A side whose code has no such line is said to lack it only where its value says so (0, none): a value
    found some other way (a count from metadata, a layout the patterns do not read) is not contradicted."""
    from ttinspect.compare.evidence import witness  # the diff machinery loads only for a diff

    found = [witness(report.build, change.key, limit=200) for report in (a, b)]
    if not any(found):
        return []

    def op(line: str) -> str:  # "ptx:140  cp.async.bulk.wait_group.read 0;" -> the instruction itself
        words = line.split("  ", 1)[-1].split()
        return next((w for w in words if not w.startswith(("@", "%"))), "")

    out = []
    for mine, theirs, name, value in ((found[0], found[1], names[0], change.before),
                                      (found[1], found[0], names[1], change.after)):
        if not mine and not is_nothing(value):
            continue
        their_ops = {op(line) for line in theirs}
        # the line that shows the difference: an instruction form the other side lacks, else the first
        shown = next((line for line in mine if op(line) not in their_ops), mine[0] if mine else "(no such line)")
        out.append(Text("    " + fit.cut(f"{name}: {shown}", width - 4), style=MEANING_STYLE))
    return out


def _without_values(change, result) -> str:
    """The generic explanation starts `before → after: `; the table above already shows both values."""
    def text(value):
        return format_value(value) if value is not None else "n/a"

    prefix = f"{text(change.before)} → {text(change.after)}: "
    return change.explanation[len(prefix):] if change.explanation.startswith(prefix) else change.explanation


def _grouped(cols: Columns, pairs, changed_style: str = "") -> list[Text]:
    lines, group = [], None
    for fa, fb in pairs:
        if fa.group != group:
            group = fa.group
            lines.append(group_line(group))
        lines += row(cols, fa.title, [_side(fa), _side(fb)], title_style=changed_style)
    return lines


def print_diff(result, *, show_all: bool = False) -> None:
    print_lines(diff_lines(result, term.width(), show_all=show_all))
    for report, facts in zip((result.a, result.b), result.one_side, strict=True):
        if facts:  # across vendors: what only one side's assembly has
            import click

            known = [f"{f.title} {f.display()}" for f in facts if f.value not in (None, 0, (), "none")]
            side = f"{report.label}@{report.target}"
            more = f"; {len(known) - 6} more (ttinspect report {side})" if len(known) > 6 else ""
            text = shown(f"only {side} ({len(facts)} facts of its own): " + "; ".join(known[:6]) + more)
            click.echo("\n".join(fit.wrap(text, term.width(), subsequent="  ")))

"""How two kernels are named side by side (the text diff, the HTML page).

A label names everything a build was made with: `fused_norm.py:fused_norm:BLOCK_SIZE=1024,HAS_WEIGHT=True,...`
runs to 300 characters for a kernel with a dozen constexprs given with --set, and both sides repeat what
they share. So two builds of one kernel are named by what they have in common, said once
(`fused_norm.py:fused_norm@sm_90`), and each side by what tells it apart: its autotune config (`#3`), else
the config keys whose values differ (`BLOCK_SIZE=1024`), its target where the targets differ, its Triton
where the releases differ. The settings both labels carry are kept to be said once elsewhere. Two
different kernels, or two short labels that share nothing, keep their whole labels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ttinspect.kernel.variants import config_value_text

_SETTINGS = re.compile(r":(?=[A-Za-z_]\w*=)")  # where a label's `:KEY=value,...` part starts
_NUMBER = re.compile(r"(?P<head>.*)#(?P<number>\d+)")
MOST_KEYS = 3  # differing keys named in a side's name; the configuration facts list every one


@dataclass(frozen=True)
class SideNames:
    plain: tuple[str, str]  # each whole label, `label@target` (`· Triton` where the releases differ)
    common: str | None  # what both share, said once (`file.py:kern@sm_90`); None: nothing to say once
    sides: tuple[str, str]  # what tells each apart (`#2`, `BLOCK_SIZE=1024`); the plain labels when no common
    shared: tuple[str, ...]  # the `KEY=value` settings both labels carry

    @property
    def short(self) -> bool:
        """Whether the sides are named by less than their whole labels."""
        return self.sides != self.plain

    def title(self) -> str:
        """`common: A vs B`, or `A vs B`."""
        pair = f"{self.sides[0]} vs {self.sides[1]}"
        return f"{self.common}: {pair}" if self.common else pair


def label_parts(label: str) -> tuple[str, str, tuple[str, ...]] | None:
    """`file.py:kern#2:X=1,Y=2` -> (`file.py:kern`, `2`, (`X=1`, `Y=2`)); None when the settings part does
    not read as KEY=value items (a value holding a comma)."""
    pieces = _SETTINGS.split(label, maxsplit=1)
    head, tail = pieces[0], pieces[1] if len(pieces) > 1 else ""
    number = ""
    found = _NUMBER.fullmatch(head)
    if found:
        head, number = found["head"], found["number"]
    elif tail:  # `--config all` of a shipped variant numbers the end of its label: `l2_g0:GROUP_SIZE_M=8#2`
        found = _NUMBER.fullmatch(tail)
        if found:
            tail, number = found["head"], found["number"]
    items = tuple(tail.split(",")) if tail else ()
    if any("=" not in item for item in items):
        return None
    # a value as every config value shows it (`compute_type=tl.bfloat16`, whatever form the label wrote)
    return head, number, tuple(f"{k}={config_value_text(v)}" for k, _, v in (i.partition("=") for i in items))


def _plain(report, other) -> str:
    label = f"{report.label}@{report.target}"
    if other.triton_version != report.triton_version:
        label += f" · {report.triton_version}"
    return label


def _apart(mine, theirs, differ: list[str], config: dict[str, str], report, other) -> str:
    """What tells one side apart from the other: its name where the names differ, else its config number,
    else the config keys whose values differ; its target and Triton where those differ."""
    (base, number, items), (other_base, other_number, other_items) = mine, theirs
    words = []
    if base != other_base:  # its own name, and the settings only it was given
        own = [item for item in items if item not in other_items]
        words.append(base + (f"#{number}" if number else "") + (":" + ",".join(own) if own else ""))
    elif number != other_number:
        words.append(f"#{number}" if number else "(no config number)")
    elif differ:
        named = ",".join(f"{k}={config.get(k, '(unset)')}" for k in differ[:MOST_KEYS])
        words.append(named + (f" +{len(differ) - MOST_KEYS} more" if len(differ) > MOST_KEYS else ""))
    text = " ".join(words) + (f"@{report.target}" if report.target != other.target else "")
    if report.triton_version != other.triton_version:
        text += (" · " if text else "") + f"Triton {report.triton_version}"
    return text


def side_names(a, b) -> SideNames:
    """`a`, `b`: reports (label, kernel, target, triton_version, config)."""
    plain = (_plain(a, b), _plain(b, a))
    parts_a, parts_b = label_parts(a.label), label_parts(b.label)
    if a.kernel != b.kernel or parts_a is None or parts_b is None:
        return SideNames(plain, None, plain, ())
    shared = tuple(item for item in parts_a[2] if item in parts_b[2])
    config_a = {k: config_value_text(v) for k, v in a.config.items()}
    config_b = {k: config_value_text(v) for k, v in b.config.items()}
    differ = [k for k in dict.fromkeys([*config_a, *config_b]) if config_a.get(k) != config_b.get(k)]
    sides = (_apart(parts_a, parts_b, differ, config_a, a, b), _apart(parts_b, parts_a, differ, config_b, b, a))
    if not all(sides):  # nothing tells them apart in these terms (the same config): the whole labels do
        return SideNames(plain, None, plain, shared)
    if parts_a[0] != parts_b[0]:  # two names: each side keeps its own, with the target they share
        target = f"@{a.target}" if a.target == b.target else ""
        return SideNames(plain, None, (sides[0] + target, sides[1] + target), shared)
    common = parts_a[0] + (f"#{parts_a[1]}" if parts_a[1] and parts_a[1] == parts_b[1] else "")
    return SideNames(plain, common + (f"@{a.target}" if a.target == b.target else ""), sides, shared)


def one_name(report, longest: int) -> str:
    """One build's name where room is short (a page's title): its label, or where that is longer than
    `longest`, its kernel's name and config number and how many settings it was given (listed elsewhere)."""
    parts = label_parts(report.label)
    if len(report.label) <= longest or parts is None:
        return report.label
    base, number, items = parts
    return base + (f"#{number}" if number else "") + (f" +{len(items)} settings" if items else "")

"""Stage text as diffs compare it: locations and comments stripped, and names that only number things
(registers, SSA values, labels) made stable, so that only real changes show.

Two comparisons need it. A diff of two kernels' main loops (`renumbered`) renames registers, SSA values
and labels in order of first appearance (`%r12` -> `%r1`); SASS registers are kept, as after register
allocation they are part of what changed. A diff of two pass snapshots of one kernel (`for_pass_diff`,
MLIR) reduces SSA names to what they say (`%acc_77` -> `%acc`, `%12` -> `%#`, `%arg10` -> `%arg#`), so
that a pass that inserts one op does not renumber every line after it.
"""

from __future__ import annotations

import re

from ttinspect.dialects.locations import MLIR_LOC_ALIAS_RE, MLIR_LOC_RE

# PTX registers %r12 %rd3 %f7 %p1 %rs2 %hh1
PTX_REGISTER_RE = re.compile(r"%(r|rd|rs|f|fd|p|hh|h|b)(\d+)\b")
# MLIR/LLVM SSA values %12 %acc_77 %arg3
SSA_RE = re.compile(r"%[A-Za-z_$.][\w$.-]*?(?:_\d+)?\b|%\d+\b")
# PTX/SASS/LLVM labels $L__BB0_3 .L_x_12 ^bb2
LABEL_RE = re.compile(r"\$L__\w+|\.L_x_\d+|\^bb\d+")
# %12 -> %#, %arg10 -> %arg#, %acc_77 -> %acc
NUMBERED_SSA_RE = re.compile(r"%(?:(\d+)|arg\d+|([A-Za-z_$.][\w$.-]*?)_\d+)\b")


def stripped(text: str, location_lines: re.Pattern[str] | None,
             trailing: re.Pattern[str] | None) -> list[str]:
    """The lines of `text` without those that only say where (`location_lines`) and without what
    `trailing` matches (a trailing location or comment)."""
    out = []
    for line in text.split("\n"):
        if location_lines and location_lines.match(line):
            continue
        out.append(trailing.sub("", line) if trailing else line)
    return out


def renumbered(lines: list[str], names: str | None) -> list[str]:
    """Labels, then `names` ("ptx": PTX registers, "ssa": SSA values, None: neither) renamed in order
    of first appearance; blank lines dropped, trailing spaces cut."""
    renamed: dict[str, str] = {}
    counters: dict[str, int] = {}

    def fresh(key: str, kind: str) -> str:
        if key not in renamed:
            counters[kind] = counters.get(kind, 0) + 1
            renamed[key] = f"{kind}{counters[kind]}"
        return renamed[key]

    out = []
    for line in lines:
        line = LABEL_RE.sub(lambda m: fresh(m[0], "L"), line)
        if names == "ptx":
            line = PTX_REGISTER_RE.sub(lambda m: fresh(m[0], "%" + m[1]), line)
        elif names == "ssa":
            line = SSA_RE.sub(lambda m: fresh(m[0], "%v"), line)
        if line.strip():
            out.append(line.rstrip())
    return out


def _reduced(match: re.Match) -> str:
    if match[1] is not None:
        return "%#"
    return "%arg#" if match[2] is None else "%" + match[2]


def for_pass_diff(text: str) -> list[str]:
    """MLIR lines with `#loc` aliases, `loc(...)` and `//` comments dropped and SSA names reduced.
    Whole-text substitutions, not a loop over lines: a pass history is ~80 snapshots, 5 MB."""
    text = NUMBERED_SSA_RE.sub(_reduced, MLIR_LOC_RE.sub("", MLIR_LOC_ALIAS_RE.sub("", text)))
    return [line.rstrip() for line in text.split("\n") if line.strip() and not line.lstrip().startswith("//")]

"""MLIR text as the pass diffs compare it: locations dropped and SSA names reduced to what they say, so
that a pass that inserts one op does not renumber every line after it.

`%acc_77` -> `%acc`, `%12` -> `%#`, `%arg10` -> `%arg#`; `#loc` aliases and `loc(...)` go. What stays
(op names, operands' kinds, attributes, types, layout aliases) is what a pass changes.
"""

from __future__ import annotations

import hashlib
import re

# loc(#loc3)   loc("a_ptr"(#loc))   loc(callsite(#loc3 at #loc33)): nested parentheses, three deep.
# Whole-text substitutions, not a loop over lines: a history is ~80 snapshots, 5 MB.
_LOC = re.compile(r" loc\((?:[^()\n]|\((?:[^()\n]|\([^()\n]*\))*\))*\)")
_LOC_ALIAS = re.compile(r"^[ \t]*#loc.*\n?", re.M)
_SSA = re.compile(r"%(?:(\d+)|arg\d+|([A-Za-z_$.][\w$.-]*?)_\d+)\b")


def _ssa(match: re.Match) -> str:
    if match[1] is not None:
        return "%#"
    return "%arg#" if match[2] is None else "%" + match[2]


def normalized_lines(text: str) -> list[str]:
    text = _SSA.sub(_ssa, _LOC.sub("", _LOC_ALIAS.sub("", text)))
    return [line.rstrip() for line in text.split("\n") if line.strip() and not line.lstrip().startswith("//")]


def digest(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]

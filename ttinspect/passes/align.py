"""Two pass histories side by side (`diff A B --passes`): the first pass after which the two modules
differ in a snapshot fact — not in SSA names or constants, which the facts do not see.

Passes are aligned by argument and occurrence (the 2nd canonicalize with the 2nd canonicalize); a pass
only one side ran (another target runs other passes) is listed, not compared. When the inputs already
differ in some facts (two different sources), the divergence is the first pass that makes a fact differ
that did not differ before it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ttinspect.passes.pass_history import PassHistory
from ttinspect.passes.snapshot_facts import FACT_KEYS, title
from ttinspect.passes.timeline import PassRow


@dataclass(frozen=True)
class Divergence:
    a: PassHistory
    b: PassHistory
    input_same_text: bool  # the first snapshots are equal once renumbered
    input_differences: dict[str, tuple[Any, Any]]  # facts that already differ in the input
    first_text: tuple[PassRow, PassRow] | None  # the first aligned pass whose output text differs (None when
    # the inputs already differ: every output then does, which says nothing)
    first_fact: tuple[PassRow, PassRow] | None  # the first aligned pass that makes a fact differ
    differences: dict[str, tuple[Any, Any]]  # at first_fact: the facts (a, b) that were equal before it
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    # Two Tritons run their passes in different orders, so cumulative states do not line up: each pass's
    # own fact changes are compared instead ("per pass"), and the passes that moved are listed.
    mode: str = "cumulative"
    reordered: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        def side(pair):
            return None if pair is None else {"a": {"index": pair[0].index, "label": pair[0].label,
                                                    "options": pair[0].options},
                                              "b": {"index": pair[1].index, "label": pair[1].label,
                                                    "options": pair[1].options}}
        return {"a": self.a.label, "b": self.b.label, "input_same_text": self.input_same_text,
                "input_differences": {k: {"title": title(k), "a": a, "b": b}
                                      for k, (a, b) in self.input_differences.items()},
                "first_text_difference": side(self.first_text), "first_fact_difference": side(self.first_fact),
                "facts": {k: {"title": title(k), "a": a, "b": b} for k, (a, b) in self.differences.items()},
                "only_a": list(self.only_a), "only_b": list(self.only_b), "mode": self.mode,
                "reordered": list(self.reordered)}


def keyed_by_pass(history: PassHistory) -> dict[tuple[str, int], PassRow]:
    seen: Counter = Counter()
    out = {}
    for row in history.passes:
        seen[row.argument] += 1
        out[(row.argument, seen[row.argument])] = row
    return out


def _differing(a: dict[str, Any], b: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {key: (a.get(key), b.get(key)) for key in FACT_KEYS if a.get(key) != b.get(key)}


def _own_changes(row: PassRow) -> dict[str, tuple[Any, Any]]:
    return {c.key: (c.before, c.after) for c in row.changed_facts}


def _moved(order_a: list, order_b: list) -> list:
    """The common passes out of order: those outside a longest run that keeps its order in both."""
    position = {key: i for i, key in enumerate(order_b)}
    seq = [position[key] for key in order_a if key in position]
    keys = [key for key in order_a if key in position]
    best: list[int] = []  # indices into seq of a longest increasing subsequence (n ~ 100: quadratic is fine)
    lengths, previous = [1] * len(seq), [-1] * len(seq)
    for i in range(len(seq)):
        for j in range(i):
            if seq[j] < seq[i] and lengths[j] + 1 > lengths[i]:
                lengths[i], previous[i] = lengths[j] + 1, j
    if seq:
        i = max(range(len(seq)), key=lambda k: lengths[k])
        while i != -1:
            best.append(i)
            i = previous[i]
    kept = set(best)
    return [keys[i] for i in range(len(keys)) if i not in kept]


def _per_pass(a: PassHistory, b: PassHistory) -> Divergence:
    keyed_a, keyed_b = keyed_by_pass(a), keyed_by_pass(b)
    first_fact, differences = None, {}
    for key, row_a in keyed_a.items():
        row_b = keyed_b.get(key)
        if row_b is None:
            continue
        own_a, own_b = _own_changes(row_a), _own_changes(row_b)
        if own_a != own_b:
            first_fact = (row_a, row_b)
            differences = {k: (own_a.get(k, (None, None))[1] if k in own_a else "unchanged",
                               own_b.get(k, (None, None))[1] if k in own_b else "unchanged")
                           for k in sorted(set(own_a) | set(own_b)) if own_a.get(k) != own_b.get(k)}
            break
    moved = _moved(list(keyed_a), list(keyed_b))
    return Divergence(a, b, a.input_digest == b.input_digest, _differing(a.input_facts, b.input_facts),
                      None, first_fact, differences,
                      tuple(f"{k[0]}#{k[1]}" for k in keyed_a if k not in keyed_b),
                      tuple(f"{k[0]}#{k[1]}" for k in keyed_b if k not in keyed_a),
                      mode="per pass", reordered=tuple(f"{k[0]}#{k[1]}" for k in moved))


def diverge(a: PassHistory, b: PassHistory) -> Divergence:
    if a.triton and b.triton and a.triton != b.triton:
        return _per_pass(a, b)
    keyed_a, keyed_b = keyed_by_pass(a), keyed_by_pass(b)
    already = _differing(a.input_facts, b.input_facts)
    first_text = first_fact = None
    same_input = a.input_digest == b.input_digest
    differences: dict[str, tuple[Any, Any]] = {}
    for key, row_a in keyed_a.items():
        row_b = keyed_b.get(key)
        if row_b is None or row_a.after_digest is None or row_b.after_digest is None:
            continue
        if same_input and first_text is None and row_a.after_digest != row_b.after_digest:
            first_text = (row_a, row_b)
        now = _differing(row_a.facts_after, row_b.facts_after)
        new = {k: v for k, v in now.items() if k not in already}
        if new:
            first_fact, differences = (row_a, row_b), new
            break
        already = {k: v for k, v in already.items() if k in now}  # a difference that closed may reopen
    return Divergence(a, b, same_input, _differing(a.input_facts, b.input_facts),
                      first_text, first_fact, differences,
                      tuple(f"{k[0]}#{k[1]}" for k in keyed_a if k not in keyed_b),
                      tuple(f"{k[0]}#{k[1]}" for k in keyed_b if k not in keyed_a))

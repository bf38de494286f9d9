"""Counting launches cheaply: the hooks keep a count per (site, compile, grid) — a *slot* — and report it to
the session (`add_launch(..., count=N)`) at the slot's 1st, 2nd, 4th, 8th ... launch and at every 1024th, and
whatever is pending when recording stops (uninstall, the process's exit). Between reports, a launch like the
last one from the same instruction of the program (same compile, same grid) costs a frame lookup, a dict
lookup and an increment: a loop launching one kernel from one line pays almost nothing, and the session's
lock is taken ~log2(n) + n/1024 times instead of n.

A session whose add_launch takes no `count` is told every launch (report after each one). A slot's count is
an int bumped under the GIL (no thread switch between its read and its write); a process that dies loses
what is pending since the last report — at most half of a slot's launches before 2048, 1023 after — which
the session's own lines (rewritten when counts double) lose anyway. Argument summaries are offered with
each report (the launch that triggered it); the session keeps the first few distinct ones.
"""

from __future__ import annotations

import inspect
from typing import Any, Mapping, Sequence

from ttinspect.capture import launches, tuning

EVERY = 1024  # a slot reports at least every EVERY launches


class Slot:
    """Launches of one compile, from one site, with one grid, counted since the last report."""
    __slots__ = ("compile_id", "site", "shape", "names", "constexprs", "kernel", "grid", "code", "pending",
                 "reported", "report_at")

    def __init__(self, compile_id: str, site: str, shape: tuple[int, ...] | None, names: Sequence[str],
                 constexprs: frozenset[str], kernel: Any, grid: Any):
        self.compile_id, self.site, self.shape = compile_id, site, shape
        self.names, self.constexprs = names, constexprs
        self.kernel, self.grid = kernel, grid  # what the fast path compares the next launch with
        self.code: Any = None  # the code object of the frame that launched last (the fast path's key is its
        # instruction offset; the code makes it exact)
        self.pending = 0
        self.reported = 0
        self.report_at = 1  # pending count at which the next report is due


# the instruction (f_lasti) of the launching frame -> the slot it used last: an int read off the frame and a
# small-int dict lookup, the cheapest key there is (the slot's code tells same-offset frames apart)
by_instruction: dict[int, Slot] = {}
_slots: dict[tuple[str, str, Any], Slot] = {}  # (site, compile id, grid) -> slot
_batched = [False]  # the session takes add_launch(..., count=N)


def start(session: Any) -> None:
    """A new session: slots of the last one are gone; does it take counts?"""
    reset()
    try:
        _batched[0] = "count" in inspect.signature(session.add_launch).parameters
    except (AttributeError, TypeError, ValueError):  # not introspectable: told every launch
        _batched[0] = False


def reset() -> None:
    by_instruction.clear()
    _slots.clear()


def launched(session: Any, known: tuple[str, Sequence[str], frozenset[str]], kernel: Any, grid: Any,
             args: Sequence[Any], kwargs: Mapping[str, Any], frame: Any) -> None:
    """One launch of the compile `known` (id, parameter names, constexprs), made from `frame` or a frame it
    was called from (the slow path: the hooks' fast path handles a launch like the last one from a frame)."""
    compile_id = known[0]
    if tuning.active and tuning.context.busy and tuning.observe_launch(session, compile_id, kwargs, grid):
        return  # the autotuner timing a config: not one of the program's launches (its grid is the config's)
    where = launches.site(frame)
    shape = launches.grid3(grid)
    key = (where, compile_id, shape)
    slot = _slots.get(key)
    if slot is None:
        slot = _slots[key] = Slot(compile_id, where, shape, known[1], known[2], kernel, grid)
    slot.kernel, slot.grid = kernel, grid
    if launches.is_site(frame):  # the next launch from this instruction may take the fast path
        slot.code = frame.f_code
        by_instruction[frame.f_lasti] = slot
    slot.pending += 1
    if slot.pending >= slot.report_at:
        report(session, slot, args, kwargs)


def report(session: Any, slot: Slot, args: Sequence[Any] | None, kwargs: Mapping[str, Any] | None) -> None:
    """Tell the session the slot's pending launches (with the summary of the launch that made them due)."""
    count, slot.pending = slot.pending, 0
    if not count:
        return
    total = slot.reported = slot.reported + count
    names, constexprs = slot.names, slot.constexprs
    summary = None if args is None or kwargs is None else (lambda: launches.summary(names, constexprs, args, kwargs))
    if _batched[0]:
        session.add_launch(slot.compile_id, slot.site, slot.shape, summary, count=count)
        slot.report_at = min(1 << total.bit_length(), (total // EVERY + 1) * EVERY) - total
    else:
        for _ in range(count):  # only at flush: an unbatched session is told each launch as it happens
            session.add_launch(slot.compile_id, slot.site, slot.shape, summary)


def flush(session: Any) -> None:
    """Report every slot's pending launches (recording stops, or the process exits)."""
    for slot in list(_slots.values()):
        if slot.pending:
            report(session, slot, None, None)

"""`--grid KEY=VALUES` and `--arch A,B`: the points of a sweep.

    BLOCK_SIZE_N=32,64,128      a list (values as --set reads them: ints, floats, true/false, tl.float16)
    num_stages=2..6             an integer range, both ends included: EVERY integer (2,3,4,5,6)
    BLOCK_SIZE_N=32..256:x2     doubling: 32,64,128,256 (`:xF` multiplies by F, `:+S` steps by S)
    config=1..17 / config=all   the kernel's own @triton.autotune configs (1-based), as `--config N`

Note that `16..128` is every integer from 16 to 128 (113 points), not the powers of two: write
`16..128:x2` for those.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from typing import Any, Mapping

from ttinspect.errors import UsageError
from ttinspect.kernel.overrides import parse_value

MAX_POINTS = 100_000
CONFIG_AXIS = "config"  # the autotune config number, not a constexpr

_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*(?::\s*([x*+])\s*(\d+)\s*)?$")
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Axis:
    name: str
    values: tuple[Any, ...]


def parse_values(text: str, key: str = "value") -> list[Any]:
    """`32,64,128`, `2..6`, `32..256:x2`, or a mix: `1,2,8..16:x2`."""
    out: list[Any] = []
    for item in text.split(","):
        if not item.strip():
            raise UsageError(f"--grid {key}={text}: an empty value (two commas, or a trailing one)")
        match = _RANGE.match(item)
        if match is None:
            if ".." in item:
                raise UsageError(f"--grid {key}={item}: a range is A..B (every integer), A..B:x2 (doubling) "
                                 "or A..B:+S (step S), with integers A <= B")
            out.append(parse_value(item.strip()))
            continue
        low, high, op, amount = int(match[1]), int(match[2]), match[3], int(match[4] or 1)
        if low > high:
            raise UsageError(f"--grid {key}={item}: the range is empty ({low} > {high})")
        if op in ("x", "*"):
            if amount < 2 or low <= 0:
                raise UsageError(f"--grid {key}={item}: :x{amount} needs a factor >= 2 and a start > 0")
            value = low
            while value <= high:
                out.append(value)
                value *= amount
        else:
            if amount < 1:
                raise UsageError(f"--grid {key}={item}: the step must be >= 1")
            if len(out) + len(range(low, high + 1, amount)) > MAX_POINTS:  # counted, never built
                raise UsageError(f"--grid {key}={item}: more than {MAX_POINTS} values")
            out.extend(range(low, high + 1, amount))
        if len(out) > MAX_POINTS:
            raise UsageError(f"--grid {key}={item}: more than {MAX_POINTS} values")
    unique = []
    for value in out:  # a value given twice is one point
        if value not in unique:
            unique.append(value)
    return unique


def parse_axis(text: str) -> Axis:
    key, sep, values = text.partition("=")
    key = key.strip()
    if not sep or not key or not values.strip():
        raise UsageError(f"--grid takes KEY=VALUES, e.g. BLOCK_SIZE_N=32,64,128 or num_stages=2..6; got {text!r}")
    if not _KEY.match(key):
        raise UsageError(f"--grid {text}: {key!r} is not a constexpr or option name")
    if key == CONFIG_AXIS and values.strip().lower() == "all":
        return Axis(key, ("all",))
    parsed = parse_values(values, key)
    if key == CONFIG_AXIS and not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in parsed):
        raise UsageError(f"--grid config={values}: autotune config numbers are integers from 1 (or `all`)")
    return Axis(key, tuple(parsed))


def parse_grid(items: tuple[str, ...] | list[str]) -> list[Axis]:
    axes: list[Axis] = []
    for item in items:
        axis = parse_axis(item)
        if any(a.name == axis.name for a in axes):
            raise UsageError(f"--grid {axis.name} is given twice; list its values in one --grid")
        axes.append(axis)
    return axes


def parse_arch_list(text: str | None) -> list[str | None]:
    """`sm_80,sm_90` -> ["sm_80", "sm_90"]; None -> [None] (the reference's or the default target)."""
    if text is None:
        return [None]
    archs = [a.strip() for a in text.split(",")]
    if not all(archs):
        raise UsageError(f"--arch {text}: an empty target in the list")
    unique: list[str | None] = list(dict.fromkeys(archs))
    return unique


def expand(axes: list[Axis], archs: list[str | None],
           config_count: int | Mapping[str | None, int] | None = None) -> list[tuple[dict, str | None]]:
    """Every combination, in order: the first axis varies slowest, the targets slowest of all. `config=all`
    takes each target's own count (`config_count` by target: a file may list other configs for another GPU)."""
    counts = config_count if isinstance(config_count, Mapping) else {arch: config_count for arch in archs}
    per_arch: list[tuple[str | None, list[Axis]]] = []
    for arch in archs:
        resolved = []
        for axis in axes:
            if axis.name == CONFIG_AXIS and axis.values == ("all",):
                count = counts.get(arch)
                if not count:
                    where = f" on {arch}" if arch and len(archs) > 1 else ""
                    raise UsageError(f"--grid config=all: the kernel has no @triton.autotune configs{where}")
                axis = Axis(axis.name, tuple(range(1, count + 1)))
            resolved.append(axis)
        per_arch.append((arch, resolved))
    total = sum(math.prod(len(axis.values) for axis in resolved) for _, resolved in per_arch)
    if total > MAX_POINTS:
        raise UsageError(f"the grid has {total} points (more than {MAX_POINTS}); narrow it")
    points = []
    for arch, resolved in per_arch:
        for combo in itertools.product(*(axis.values for axis in resolved)):
            points.append(({axis.name: value for axis, value in zip(resolved, combo, strict=True)}, arch))
    return points

"""The values a capture recorded for a compile's launches, as the rules read them (`check CAP:K`, `check CAP`).

The rule: a runtime integer argument takes the captured value only when every recorded launch of that compile
(every site, every argument set) gave it the same one, so a finding never rests on one launch among others that
would read differently. An argument recorded with several values stays without a value, as an `UnequalValues`:
a rule that needs it says it is unknown and names the values it took (TTI001's trip count). `--signature` and
`--arg` values win over the capture's, as they apply on top of the captured reference."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ttinspect.refs.captured import is_capture_ref, recorded_values


@dataclass(frozen=True)
class UnequalValues:
    """An argument the capture's launches of one compile gave several values: no single value to reason from."""

    values: tuple[int, ...]

    def __str__(self) -> str:
        shown = ", ".join(str(v) for v in self.values[:4]) + (", …" if len(self.values) > 4 else "")
        return f"{len(self.values)} values in the captured launches ({shown})"


def captured_launch_values(ref: Any) -> dict[str, Any]:
    """The launch values of a capture reference's compile by name: an int where every recorded launch agrees,
    an UnequalValues where they differ; {} for any other reference, or a compile the capture saw no launch of."""
    if not isinstance(ref, str):
        return {}
    if not is_capture_ref(ref):
        return {}
    return {name: values[0] if len(values) == 1 else UnequalValues(values)
            for name, values in recorded_values(ref).items()}

"""The grid a grid callable makes of a launch's bound arguments, as Triton's JIT calls it: every parameter by
name with its default filled in, the launch's options (and an autotuner's config values) beside them. Used
where a launch is recorded without the JIT evaluating its grid (`capture --as`, an untimed autotuner)."""

from __future__ import annotations

import inspect
from typing import Any, Mapping, Sequence


class GridRaised(Exception):
    """The program's own grid callable raised (`raise OutOfResources(...)` to skip a config, as flashrnn does):
    its error, which the launch raises as the JIT would (and Triton's benchmarker then times the config inf)."""

    def __init__(self, error: BaseException):
        super().__init__(str(error))
        self.error = error


def evaluated_grid(obj: Any, grid: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """`grid(meta)` for a launch of `obj` (a JITFunction, or the Python function under it) with these
    arguments; the grid itself when it is not a callable."""
    if not callable(grid):
        return grid
    signature = inspect.signature(getattr(obj, "fn", obj))
    names = set(signature.parameters)
    bound = signature.bind_partial(*args, **{k: v for k, v in kwargs.items() if k in names})
    bound.apply_defaults()
    meta = {**{k: v for k, v in kwargs.items() if k not in names}, **bound.arguments}
    try:
        return grid(meta)
    except Exception as error:  # the program's code: its error, not a failure of the record
        raise GridRaised(error) from error

"""The compile options that travel beside the constexprs in a config (`num_warps`, `num_stages`, ...) and
the values each may take, checked before Triton sees them."""

from __future__ import annotations

from typing import Any

from ttinspect.errors import UsageError

# Compile options that travel beside the constexprs in a config (Triton's `triton.Config` keeps
# them apart; a user thinks of them as one list of knobs).
OPTION_KEYS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


# The compile options' valid values: Triton takes them as C++ ints (a huge one fails deep inside with
# pybind's "Invoked with types ..."), and warps come in powers of two. num_stages=0 is Triton's too (a
# library's launch passes it: no software pipelining, as 1).
OPTION_RANGES = {"num_warps": (1, 2, 4, 8, 16, 32), "num_stages": range(0, 33), "num_ctas": (1, 2, 4, 8, 16),
                 "maxnreg": range(16, 256)}


def check_option(key: str, value: Any, origin: str = "--set") -> None:
    """A compile option's value, for shipped variants and user kernels alike. `origin` names where the
    value came from (`--set`, or e.g. "autotune config 2 of matmul sets"), so the error blames it."""
    allowed = OPTION_RANGES.get(key)
    if allowed is None:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value not in allowed:
        if isinstance(allowed, range):
            raise UsageError(f"{origin} {key}={short_value(value)}: must be an integer from {allowed.start} to "
                             f"{allowed.stop - 1}")
        raise UsageError(f"{origin} {key}={short_value(value)}: must be one of {', '.join(map(str, allowed))}")


def short_value(value: Any) -> str:
    """A value as an error message quotes it: at most 40 characters."""
    text = str(value)
    return text if len(text) <= 40 else text[:40] + "..."

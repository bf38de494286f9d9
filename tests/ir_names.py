"""Triton 3.3 numbers a kernel's IR arguments (%arg0, %arg1, ...); later versions use the Python
parameter names. Tests that look for an argument by name put the names back first."""

from __future__ import annotations

import re


def with_param_names(ir: str, names: list[str]) -> str:
    """`names`: the runtime parameters the IR function takes, in order (constexprs and parameters
    specialized to 1 are not arguments)."""
    return re.sub(r"%arg(\d+)\b", lambda m: f"%{names[int(m[1])]}" if int(m[1]) < len(names) else m[0], ir)

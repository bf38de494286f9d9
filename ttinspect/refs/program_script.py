"""A kernel defined in a program's script (`ttinspect capture -- python train.py`, the kernel in train.py): a
file of no package that acts when imported — the file decides (capture/program_file.py), never the capture's
`module` string, which a stranger's capture could set to anything. Importing that file would run the program
again — its launches, its synchronizations, its prints — which is neither possible offline nor wanted. So
such a file is loaded for its *definitions*: its imports, functions, classes, assignments and the
`if`/`try` blocks that choose among them run; the statements that only act — a bare call (`print(...)`,
`main()`, `benchmark.run()`), a loop, a `with` block — are left out; and a kernel launched while it loads (an
assignment that calls a function that launches, as tutorials write `output = add(x, y)`) is not run.

Line numbers stay the file's own (the statements kept are compiled from the file's syntax tree), so errors,
source lines and the kernels' own text are the file's.
"""

from __future__ import annotations

# One implementation for both uses: a replay's loader (copied by its source into `ttinspect repro` scripts)
# loads a program's script the same way, so the filter lives beside it, standalone.
from ttinspect.capture.replay_runtime import run_definitions, script_definitions as definitions

__all__ = ["definitions", "run_definitions"]

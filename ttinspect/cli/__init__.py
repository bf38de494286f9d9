"""The command line: each command parses its options, calls one library function and renders the result.

Imports are lazy: `ttinspect --help` and a warm `dump` must not pay for triton, torch, rich or pygments
unless they need them. One module per command group; this package only assembles them.
"""

from __future__ import annotations

import os
import sys

from . import cache_cmd, gpu_cmds, inspect_cmds, targets_cmd  # noqa: F401  (registers the commands)
from .app import cli

__all__ = ["cli", "main"]


def main() -> None:
    try:
        cli(prog_name="ttinspect")
    except BrokenPipeError:  # `ttinspect dump ... | head`: the reader left; not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)


if __name__ == "__main__":
    main()

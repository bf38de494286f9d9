"""Warm CLI commands, timed from Python's start to exit (what a user waits for), best of N runs.

    python benchmarks/warm_commands.py [--runs 7] [--python PYTHON] [--json]

Every command runs once first (the cache filled, the answer on disk), then N times; the best and the median
are printed. `--python` times another interpreter (e.g. an older checkout with PYTHONPATH set) for a
before/after comparison on the same machine, run back to back (docs/perf.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

COMMANDS = (
    ("list",),
    ("dump", "matmul_opt", "--stage", "ptx"),
    ("report", "opt", "--arch", "sm_90"),
    ("report", "opt", "--arch", "sm_90", "--json"),
    ("diff", "naive", "opt"),
    ("check", "tileon", "--arch", "sm_90"),
    ("check", "opt_tma", "--arch", "sm_90", "--json"),
    ("passes", "opt", "--arch", "sm_90"),
    ("dump", "opt", "--stage", "sass", "--arch", "sm_90", "--loop"),
)


def time_command(python: str, args: tuple[str, ...], runs: int) -> list[float]:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100")
    argv = [python, "-m", "ttinspect", *args]
    subprocess.run(argv, capture_output=True, env=env, check=True)  # warm: compiled, facts on disk
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, env=env, check=True)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    rows = []
    for args in COMMANDS:
        times = time_command(options.python, args, options.runs)
        rows.append({"command": "ttinspect " + " ".join(args), "best_s": round(min(times), 3),
                     "median_s": round(statistics.median(times), 3)})
        if not options.json:
            print(f"{rows[-1]['best_s']:7.3f} s best  {rows[-1]['median_s']:7.3f} s median  {rows[-1]['command']}",
                  flush=True)
    if options.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

"""Warm CLI commands, timed from Python's start to exit (what a user waits for), best of N runs.

    python benchmarks/warm_commands.py [--runs 7] [--python PYTHON] [--only dump,--help] [--no-bytecode] [--json]

Every command runs once first (the cache filled, the answer on disk), then N times; the best and the median
are printed. `--python` times another interpreter (e.g. an older checkout with PYTHONPATH set) for a
before/after comparison on the same machine, run back to back (docs/perf.md).

Python's bytecode cache is on, as in an installed package (an unset PYTHONDONTWRITEBYTECODE; the .pyc files go
to a folder of this run's, PYTHONPYCACHEPREFIX, never into the checkout). `--no-bytecode` times every start
compiling ttinspect's modules from source, as where PYTHONDONTWRITEBYTECODE=1 is set and no .pyc exists (this
project's machines): each module a warm command imports then costs its compile too.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

COMMANDS = (
    ("--help",),
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


def time_command(python: str, args: tuple[str, ...], runs: int, env: dict[str, str]) -> list[float]:
    argv = [python, "-m", "ttinspect", *args]
    subprocess.run(argv, capture_output=True, env=env, check=True)  # warm: compiled, facts (and .pyc) on disk
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
    parser.add_argument("--only", default="", help="Comma-separated first words of the commands to time "
                                                     "(dump,--help); default: all.")
    parser.add_argument("--no-bytecode", action="store_true", help="Compile every module at every start.")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    only = {word for word in options.only.split(",") if word}
    with tempfile.TemporaryDirectory(prefix="ttinspect-bench-pyc-") as pycache:
        env = dict(os.environ, NO_COLOR="1", COLUMNS="100")
        if options.no_bytecode:
            env.update(PYTHONDONTWRITEBYTECODE="1")
            env.pop("PYTHONPYCACHEPREFIX", None)  # a .pyc only where one lies beside the sources already
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env.update(PYTHONPYCACHEPREFIX=pycache)
        rows = [time_all(options, args, env) for args in COMMANDS if not only or args[0] in only]
    if options.json:
        print(json.dumps(rows, indent=1))


def time_all(options: argparse.Namespace, args: tuple[str, ...], env: dict[str, str]) -> dict:
    times = time_command(options.python, args, options.runs, env)
    row = {"command": "ttinspect " + " ".join(args), "best_s": round(min(times), 3),
           "median_s": round(statistics.median(times), 3)}
    if not options.json:
        print(f"{row['best_s']:7.3f} s best  {row['median_s']:7.3f} s median  {row['command']}", flush=True)
    return row


if __name__ == "__main__":
    main()

"""How fast is a warm `ttinspect check`? (issue 9, part 2: target <= 0.3 s, importing neither triton nor torch)

    python benchmarks/check_speed.py [--runs 7] [--ref tileon] [--arch sm_90]

The median wall time of fresh processes running `ttinspect check REF --arch ARCH` (and `--json`) with the
artifact cache filled by a first run, the way a user runs it again after the first compile; then whether
that process imported triton or torch.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def _time(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--ref", action="append", help="kernel reference(s) (default: tileon and opt_tma)")
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()
    env = {**os.environ, "NO_COLOR": "1"}
    base = [sys.executable, "-m", "ttinspect", "check"]
    for ref in args.ref or ["tileon", "opt_tma"]:
        for extra in ([], ["--json"]):
            cmd = base + [ref, "--arch", args.arch] + extra
            _time(cmd, env)  # fills the cache (compiles when cold)
            median = statistics.median(_time(cmd, env) for _ in range(args.runs))
            print(f"warm check {ref} --arch {args.arch} {' '.join(extra):6s}: {median:.3f} s "
                  f"(median of {args.runs}; target <= 0.3 s)")
    probe = ("import sys, runpy; sys.argv = ['ttinspect', 'check', %r, '--arch', %r, '--json']\n"
             "try:\n    runpy.run_module('ttinspect', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "print([m for m in ('triton', 'torch') if m in sys.modules], file=sys.stderr)"
             % ((args.ref or ["tileon"])[0], args.arch))
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    print(f"heavy modules imported by a warm check: {done.stderr.strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()

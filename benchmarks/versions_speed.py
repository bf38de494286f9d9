"""The speed of cross-version work (docs/perf.md): a cold diff of opt on sm_90 under two Tritons against a
cold same-version diff (target ≤ 1.5×), the warm cross-version diff (target ≤ 0.3 s), and preparing a
toolchain with pip and, when it is on PATH, uv.

    python benchmarks/versions_speed.py --other-python /path/to/env-with-triton-3.6/bin/python [--runs 3]

Every cold run gets empty ttinspect and Triton caches; the other Triton's environment is registered in
them (not timed: a prepared toolchain is the premise). Preparing is timed into a fresh cache directory.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CLI = [sys.executable, "-m", "ttinspect"]


def _env(cache: str) -> dict:
    return {**os.environ, "TTINSPECT_CACHE_DIR": f"{cache}/tt", "TRITON_CACHE_DIR": f"{cache}/triton"}


def _timed(args: list[str], env: dict) -> float:
    start = time.perf_counter()
    done = subprocess.run(CLI + args, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr.strip()}")
    return took


def _triton_of(python: str) -> str:
    return subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('triton'))"],
                          capture_output=True, text=True, check=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other-python", required=True, help="a python whose environment has another Triton")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--prepare", default="3.8.0", help="the release to time preparing (pip, uv)")
    options = parser.parse_args()
    other = _triton_of(options.other_python)
    same, cross, warm = [], [], []
    for _ in range(options.runs):
        with tempfile.TemporaryDirectory() as cache:
            same.append(_timed(["diff", "opt", "opt:num_stages=3", "--arch", "sm_90"], _env(cache)))
        with tempfile.TemporaryDirectory() as cache:
            env = _env(cache)
            subprocess.run(CLI + ["toolchains", "--add", other, "--python", options.other_python], env=env,
                           capture_output=True, check=True)
            cross.append(_timed(["diff", f"opt@triton={other}", "opt", "--arch", "sm_90"], env))
            warm += [_timed(["diff", f"opt@triton={other}", "opt", "--arch", "sm_90"], env) for _ in range(5)]
    prepare = {}
    for tool in ("pip", "uv"):
        if tool == "uv" and not shutil.which("uv"):
            continue
        with tempfile.TemporaryDirectory() as cache:
            env = _env(cache)
            if tool == "pip":  # uv off the PATH for this one
                env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                              if not os.path.exists(os.path.join(p, "uv")))
            prepare[tool] = round(_timed(["toolchains", "--add", options.prepare], env), 2)
    result = {
        "other_triton": other, "runs": options.runs,
        "cold_same_version_diff_s": round(statistics.median(same), 2),
        "cold_cross_version_diff_s": round(statistics.median(cross), 2),
        "ratio": round(statistics.median(cross) / statistics.median(same), 2),
        "warm_cross_version_diff_s": round(statistics.median(warm), 3),
        "prepare_s": prepare,
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

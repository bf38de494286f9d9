"""How fast is `ttinspect sweep`, and a cold / warm `ttinspect diff`? (issue 11, "Sweep")

    python benchmarks/sweep_speed.py [--runs 1] [--skip-ray] [--json out.json]

Each figure is the wall time of a fresh `ttinspect` process (the way a user runs it), with an empty
artifact cache for the cold ones (TTINSPECT_CACHE_DIR and TRITON_CACHE_DIR point into a temporary
directory). Targets:
1. cold 24-point sweep of opt on sm_90: -j 2 at least 1.7x faster than -j 1;
2. the same sweep warm: <= 1 s;
3. --executor ray on a local 2-CPU Ray (start-up counted) at least 1.5x faster than -j 1, 48 points cold;
4. cold `ttinspect diff naive opt` (its two sides compiled at once) <= 0.65x the serial time (the same
   command compiling one side after the other, as before: an in-process script doing what diff did);
5. warm `ttinspect diff naive opt` <= 0.15 s.
The machine's load average is printed with the figures: on a shared machine they are noisy.
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
from pathlib import Path

GRID_24 = ["--grid", "BLOCK_SIZE_N=32,64,128,256", "--grid", "num_stages=2..4", "--grid", "num_warps=4,8"]
GRID_48 = ["--grid", "BLOCK_SIZE_N=32,64,128,256", "--grid", "num_stages=2..7", "--grid", "num_warps=4,8"]

SERIAL_DIFF = """\
import sys
from ttinspect.cli.common import options_from
from ttinspect.compare.facts_diff import diff_reports
from ttinspect.refs.resolver import resolve_one
from ttinspect.render.tables import diff_table
from ttinspect.report.collect import report_from_build
options = options_from(sys.argv[3], (), (), None, None)
builds = [resolve_one(ref, options) for ref in sys.argv[1:3]]
diff_table(diff_reports(*(report_from_build(b) for b in builds)))
"""


def _run(cmd: list[str], env: dict[str, str], before=None) -> float:
    if before:
        before()
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    return elapsed


def _median(cmd, env, runs, before=None) -> float:
    return statistics.median(_run(cmd, env, before) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1, help="cold runs per figure (warm ones: 5x this)")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="ttinspect-sweep-speed-"))
    cache_dir, triton_cache = work / "cache", work / "triton"
    env = {**os.environ, "TTINSPECT_CACHE_DIR": str(cache_dir), "TRITON_CACHE_DIR": str(triton_cache),
           "TRITON_DEFAULT_FP_FUSION": os.environ.get("TRITON_DEFAULT_FP_FUSION", "1"), "NO_COLOR": "1"}
    exe = shutil.which("ttinspect") or "ttinspect"

    def empty():
        shutil.rmtree(cache_dir, ignore_errors=True)
        shutil.rmtree(triton_cache, ignore_errors=True)

    def sweep(grid, *extra):
        return [exe, "sweep", "opt", *grid, "--arch", args.arch, "--json", *extra]

    figures: dict[str, object] = {"arch": args.arch, "runs": args.runs, "load_before": os.getloadavg()}
    figures["sweep24_j1_cold_s"] = _median(sweep(GRID_24, "-j", "1"), env, args.runs, empty)
    figures["sweep24_j2_cold_s"] = _median(sweep(GRID_24, "-j", "2"), env, args.runs, empty)
    figures["sweep24_speedup"] = figures["sweep24_j1_cold_s"] / figures["sweep24_j2_cold_s"]
    figures["sweep24_warm_s"] = _median(sweep(GRID_24, "-j", "2"), env, 5 * args.runs)

    if not args.skip_ray:
        figures["sweep48_j1_cold_s"] = _median(sweep(GRID_48, "-j", "1"), env, args.runs, empty)
        ray_env = {k: v for k, v in env.items() if k != "RAY_ADDRESS"}
        figures["sweep48_ray2_cold_s"] = _median(sweep(GRID_48, "-j", "2", "--executor", "ray"), ray_env,
                                                 args.runs, empty)
        figures["sweep48_ray_speedup"] = figures["sweep48_j1_cold_s"] / figures["sweep48_ray2_cold_s"]

    script = work / "serial_diff.py"
    script.write_text(SERIAL_DIFF)
    figures["diff_serial_cold_s"] = _median([sys.executable, str(script), "naive", "opt", args.arch], env,
                                            max(3, args.runs), empty)
    figures["diff_cold_s"] = _median([exe, "diff", "naive", "opt", "--arch", args.arch], env, max(3, args.runs), empty)
    figures["diff_cold_ratio"] = figures["diff_cold_s"] / figures["diff_serial_cold_s"]
    figures["diff_warm_s"] = _median([exe, "diff", "naive", "opt", "--arch", args.arch], env, 9)
    figures["load_after"] = os.getloadavg()
    shutil.rmtree(work, ignore_errors=True)

    print(f"load average before {figures['load_before']}, after {figures['load_after']}")
    print(f"cold 24-point sweep: -j 1 {figures['sweep24_j1_cold_s']:.1f} s, -j 2 {figures['sweep24_j2_cold_s']:.1f} s "
          f"-> {figures['sweep24_speedup']:.2f}x (target >= 1.7)")
    print(f"warm 24-point sweep: {figures['sweep24_warm_s']:.3f} s (target <= 1.0)")
    if not args.skip_ray:
        print(f"cold 48-point sweep: -j 1 {figures['sweep48_j1_cold_s']:.1f} s, local Ray (2 CPUs) "
              f"{figures['sweep48_ray2_cold_s']:.1f} s -> {figures['sweep48_ray_speedup']:.2f}x (target >= 1.5)")
    print(f"cold diff naive opt: {figures['diff_cold_s']:.2f} s vs serial {figures['diff_serial_cold_s']:.2f} s -> "
          f"{figures['diff_cold_ratio']:.2f} (target <= 0.65)")
    print(f"warm diff naive opt: {figures['diff_warm_s']:.3f} s (target <= 0.15)")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()

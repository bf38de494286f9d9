"""How much does `ttinspect passes` cost? (issue 9: the pass history)

    python benchmarks/passes_speed.py [--runs 5] [--variant opt] [--arch sm_90]

Median wall time of fresh processes, as a user runs them:
1. cold: `ttinspect passes VARIANT` with every cache empty (the build, then a second compile with
   MLIR_ENABLE_DUMP=1 that stops after llir, splitting ~5 MB of dumps, the facts of every snapshot),
   against a plain script that imports triton and compiles the same kernel (empty Triton cache).
   Target: ratio <= 2.5.
2. warm: the same command again (reads the cached timeline JSON). Target: <= 0.3 s.
3. warm `--show tritongpu-pipeline` (decompresses the raw dump and diffs one pass): reported only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed import _baseline_script, _median, _time, _triton_version  # noqa: E402  (the same baseline)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--variant", default="opt")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--json", dest="json_out", help="also write the figures to this file")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="ttinspect-passes-speed-"))
    ours_cache, triton_cache = work / "ttinspect-cache", work / "triton-cache"
    env = {**os.environ, "TTINSPECT_CACHE_DIR": str(ours_cache), "TRITON_CACHE_DIR": str(triton_cache),
           "TRITON_DEFAULT_FP_FUSION": os.environ.get("TRITON_DEFAULT_FP_FUSION", "1")}
    exe = shutil.which("ttinspect") or sys.argv[0]
    ours = [exe, "passes", args.variant, "--arch", args.arch]
    show = ours + ["--show", "tritongpu-pipeline"]
    plain = [sys.executable, str(_baseline_script(args.variant, args.arch, work))]

    def empty_caches():
        shutil.rmtree(ours_cache, ignore_errors=True)
        shutil.rmtree(triton_cache, ignore_errors=True)

    cold_ours = _median(ours, env, args.runs, empty_caches)
    cold_plain = _median(plain, env, args.runs, empty_caches)
    _time(ours, env)  # fill the cache
    warm_ours = _median(ours, env, args.runs)
    warm_show = _median(show, env, args.runs)
    shutil.rmtree(work, ignore_errors=True)

    figures = {"variant": args.variant, "arch": args.arch, "runs": args.runs, "triton": _triton_version(),
               "cold_passes_s": cold_ours, "cold_plain_triton_s": cold_plain, "cold_ratio": cold_ours / cold_plain,
               "warm_passes_s": warm_ours, "warm_show_s": warm_show}
    print(f"cold: ttinspect passes {cold_ours:.3f} s vs plain triton.compile {cold_plain:.3f} s -> ratio "
          f"{figures['cold_ratio']:.2f} (target <= 2.5)")
    print(f"warm: ttinspect passes {warm_ours:.3f} s (target <= 0.3)")
    print(f"warm: --show tritongpu-pipeline {warm_show:.3f} s")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(figures, indent=2))
    sys.exit(0 if figures["cold_ratio"] <= 2.5 and warm_ours <= 0.3 else 1)


if __name__ == "__main__":
    main()

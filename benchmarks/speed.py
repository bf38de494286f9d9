"""How fast is ttinspect next to using Triton directly? (issue: "The engine", section 7)

    python benchmarks/speed.py [--runs 7] [--variant matmul_opt] [--arch sm_89]

Three comparisons, each the median wall time of fresh processes (the way a user runs a command):
1. warm: `ttinspect dump VARIANT --stage ptx` with its artifact cache filled, against a plain Python
   script that imports triton and compiles the same kernel through Triton's own (filled) cache.
   Target: ratio <= 1.0.
2. cold: the same dump with both caches empty, against the plain script with an empty Triton cache
   (a plain `triton.compile`). Target: ratio <= 1.15.
3. `ttinspect --help`. Target: <= 0.15 s.
The plain script gets exactly the signature, constexprs and divisibility attributes ttinspect
compiles with (written into it as literals), so both do the same compile.
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

BASELINE = """\
import sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from {module} import {function} as fn
src = ASTSource(fn, {signature!r}, {constexprs!r}, {attrs!r})
kernel = triton.compile(src, target=GPUTarget("cuda", {capability}, 32), options={options!r})
sys.stdout.write(kernel.asm["ptx"])
"""


def _time(cmd: list[str], env: dict[str, str], before=None) -> float:
    if before:
        before()
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    return elapsed


def _median(cmd, env, runs, before=None) -> float:
    return statistics.median(_time(cmd, env, before) for _ in range(runs))


def _baseline_script(variant: str, arch: str, workdir: Path) -> Path:
    from ttinspect.compile.jit import specialize_for
    from ttinspect.engine.builds import resolve_target
    from ttinspect.kernel.overrides import resolve
    from ttinspect.kernel.options import OPTION_KEYS

    resolved = resolve(variant)
    config = dict(resolved.config)
    fn = resolved.variant.load_kernel()
    spec = specialize_for(fn, resolved.args(), config)
    script = workdir / "plain_triton.py"
    script.write_text(BASELINE.format(
        module=resolved.variant.module, function=resolved.variant.function, signature=spec.signature,
        constexprs=spec.constexprs, attrs=spec.attrs, capability=resolve_target(arch).capability,
        options={k: v for k, v in config.items() if k in OPTION_KEYS}))
    return script


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--variant", default="matmul_opt")
    parser.add_argument("--arch", default="sm_89")
    parser.add_argument("--json", dest="json_out", help="also write the figures to this file")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="ttinspect-speed-"))
    ours_cache, triton_cache = work / "ttinspect-cache", work / "triton-cache"
    env = {**os.environ, "TTINSPECT_CACHE_DIR": str(ours_cache), "TRITON_CACHE_DIR": str(triton_cache),
           "TRITON_DEFAULT_FP_FUSION": os.environ.get("TRITON_DEFAULT_FP_FUSION", "1")}
    exe = shutil.which("ttinspect") or sys.argv[0]
    ours = [exe, "dump", args.variant, "--stage", "ptx", "--arch", args.arch]
    plain = [sys.executable, str(_baseline_script(args.variant, args.arch, work))]

    def empty_caches():
        shutil.rmtree(ours_cache, ignore_errors=True)
        shutil.rmtree(triton_cache, ignore_errors=True)

    # Same output first: the comparison is only fair if both produce the same PTX.
    empty_caches()
    ptx_ours = subprocess.run(ours + ["--no-header"], env=env, capture_output=True, text=True, check=True).stdout
    ptx_plain = subprocess.run(plain, env=env, capture_output=True, text=True, check=True).stdout
    same_ptx = ptx_ours == ptx_plain

    cold_ours = _median(ours, env, args.runs, empty_caches)
    cold_plain = _median(plain, env, args.runs, empty_caches)
    _time(ours, env), _time(plain, env)  # fill both caches
    warm_ours = _median(ours, env, args.runs)
    warm_plain = _median(plain, env, args.runs)
    help_time = _median([exe, "--help"], env, args.runs)
    shutil.rmtree(work, ignore_errors=True)

    figures = {
        "variant": args.variant, "arch": args.arch, "runs": args.runs, "same_ptx": same_ptx,
        "python": sys.version.split()[0], "triton": _triton_version(),
        "warm_ttinspect_s": warm_ours, "warm_plain_triton_s": warm_plain, "warm_ratio": warm_ours / warm_plain,
        "cold_ttinspect_s": cold_ours, "cold_plain_triton_s": cold_plain, "cold_ratio": cold_ours / cold_plain,
        "help_s": help_time,
    }
    print(f"same PTX as plain triton.compile: {same_ptx}")
    print(f"warm: ttinspect {warm_ours:.3f} s vs plain triton {warm_plain:.3f} s -> ratio "
          f"{figures['warm_ratio']:.2f} (target <= 1.0)")
    print(f"cold: ttinspect {cold_ours:.3f} s vs plain triton {cold_plain:.3f} s -> ratio "
          f"{figures['cold_ratio']:.2f} (target <= 1.15)")
    print(f"--help: {help_time:.3f} s (target <= 0.15)")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(figures, indent=2))
    ok = same_ptx and figures["warm_ratio"] <= 1.0 and figures["cold_ratio"] <= 1.15 and help_time <= 0.15
    sys.exit(0 if ok else 1)


def _triton_version() -> str:
    from importlib.metadata import version

    return version("triton")


if __name__ == "__main__":
    main()

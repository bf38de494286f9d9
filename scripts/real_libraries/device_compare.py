"""On the GPU machine: a driver captured twice — by a real run on the GPU and by `capture --as ARCH` (the target's
virtual device, nothing run) — compared per compile: the same kernels with the same signatures, constexprs and
options, and the same PTX (`ttinspect dump CAP:KERNEL#N --stage ptx` of both; and the run's own PTX, from
its Triton cache, where the record names it). One JSON object on stdout (scripts/device_real_libraries.sh).

    python3 scripts/real_libraries/device_compare.py GPU.ttcap AS.ttcap [--ptx-limit N] [--timeout S]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from ttinspect.capture import read


OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")  # what a launch chooses; a GPU record also writes
# every backend default it compiled with (ptx_version, ...): those are the release's, and the PTX shows them


def key(compile_) -> str:
    """What a compile is made of, apart from where and when it was recorded."""
    options = {k: v for k, v in compile_.options.items() if k in OPTIONS}
    return json.dumps([compile_.name, Path(compile_.file or "").name, compile_.signature,
                       compile_.constexprs, options], sort_keys=True, default=str)


def dump_ptx(capture: str, compile_, timeout: int) -> tuple[str | None, str | None]:
    ref = f"{capture}:{compile_.name}#{compile_.number}"
    try:
        done = subprocess.run([sys.executable, "-m", "ttinspect", "dump", ref, "--stage", "ptx", "--no-header",
                               "--color", "never"],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"dump timed out after {timeout} s"
    if done.returncode != 0:
        return None, (done.stderr.strip().splitlines() or ["(no output)"])[-1][:300]
    return done.stdout, None


def run_ptx(compile_) -> str | None:
    """The PTX the real run wrote into its Triton cache, where the record names the folder."""
    folder = Path(compile_.triton_cache_dir or "")
    found = sorted(folder.glob("*.ptx")) if compile_.triton_cache_dir and folder.is_dir() else []
    return found[0].read_text() if found else None


def body(ptx: str) -> list[str]:
    """The PTX without its header comments (the generator's banner)."""
    return [line for line in ptx.splitlines() if not line.startswith("//")]


def compare(gpu_path: str, as_path: str, ptx_limit: int, timeout: int) -> dict:
    gpu, virtual = read(gpu_path), read(as_path)
    gpu_keys = {key(c): c for c in gpu.compiles}
    as_keys = {key(c): c for c in virtual.compiles}
    same = [k for k in as_keys if k in gpu_keys]
    result = {
        "gpu_compiles": len(gpu.compiles), "as_compiles": len(virtual.compiles), "same_compiles": len(same),
        "only_gpu": [json.loads(k) for k in gpu_keys if k not in as_keys],  # name, file, signature, constexprs,
        "only_as": [json.loads(k) for k in as_keys if k not in gpu_keys],   # options: what differs shows
        "kernels_gpu": sorted({c.name for c in gpu.compiles}), "kernels_as": sorted({c.name for c in virtual.compiles}),
        "ptx": [],
    }
    # One PTX comparison per kernel name first (the first compile both runs made), then more up to the limit.
    firsts: dict[str, str] = {}
    for k in same:
        firsts.setdefault(json.loads(k)[0], k)
    ordered = list(firsts.values()) + [k for k in same if k not in firsts.values()]
    for k in ordered[:ptx_limit]:
        as_compile, gpu_compile = as_keys[k], gpu_keys[k]
        as_ptx, as_error = dump_ptx(as_path, as_compile, timeout)
        gpu_ptx, gpu_error = dump_ptx(gpu_path, gpu_compile, timeout)
        ran = run_ptx(gpu_compile)
        result["ptx"].append({
            "kernel": as_compile.name, "as_ref": f"{as_compile.name}#{as_compile.number}",
            "gpu_ref": f"{gpu_compile.name}#{gpu_compile.number}",
            "as_vs_gpu_record": None if as_ptx is None or gpu_ptx is None else body(as_ptx) == body(gpu_ptx),
            "as_vs_run_cache": None if as_ptx is None or ran is None else body(as_ptx) == body(ran),
            "error": as_error or gpu_error,
        })
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gpu")
    parser.add_argument("as_target")
    parser.add_argument("--ptx-limit", type=int, default=6, help="compiles whose PTX is compared (per driver)")
    parser.add_argument("--timeout", type=int, default=60, help="seconds for one dump")
    options = parser.parse_args()
    start = time.perf_counter()
    try:
        result = compare(options.gpu, options.as_target, options.ptx_limit, options.timeout)
    except Exception as error:  # noqa: BLE001 - one line per driver in the JSON, whatever went wrong
        result = {"error": f"{type(error).__name__}: {error}"[:400]}
    result["seconds"] = round(time.perf_counter() - start, 1)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

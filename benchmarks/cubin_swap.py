"""Another Triton release's machine code, timed on a GPU whose Python has only one Triton: the kernel is
compiled and launched by the installed Triton (its JIT cache entry is made), then the entry's cubin is
replaced with the other release's and the same launch runs again in a fresh process — Triton loads the
entry from disk. Sound only when both cubins take the same parameters (checked offline from the PTX) and
the same launch settings (warps, shared memory): `export` refuses otherwise.

    # here (no GPU): the other release's cubin and what it must match
    python benchmarks/cubin_swap.py export tileon --arch sm_90 --triton 3.5.1 --native 3.6.0 --out DIR
    # on the GPU machine (Triton 3.6.0): native vs swapped, timings, n_regs/n_spills as loaded
    python benchmarks/cubin_swap.py run DIR --json OUT/swap.json

The output is checked against torch.matmul each time (a swapped kernel that computed wrong would fail).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def _params(ptx: str) -> list[str]:
    entry = re.search(r"\.entry\s+\w+\s*\((.*?)\)", ptx, flags=re.S)
    return re.findall(r"\.param\s+(\.\w+(?:\s+\.ptr\s+\.\w+\s+\.align\s+\d+)?)", entry.group(1)) if entry else []


def export(options) -> None:
    from ttinspect.refs.resolver import RefOptions, resolve_one

    builds = {v: resolve_one(f"{options.ref}@triton={v}", RefOptions(arch=options.arch))
              for v in (options.triton, options.native)}
    other, native = builds[options.triton], builds[options.native]
    checks = {"params": (_params(other.artifacts.text("ptx")), _params(native.artifacts.text("ptx"))),
              **{k: (other.metadata.get(k), native.metadata.get(k)) for k in ("num_warps", "num_ctas", "shared",
                                                                               "name")}}
    differ = {k: v for k, v in checks.items() if v[0] != v[1]}
    if differ:
        raise SystemExit(f"not swappable ({options.triton} vs {options.native}): {differ}")
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(other.artifacts.directory / "kernel.cubin", out / f"{options.triton}.cubin")
    manifest = {"ref": options.ref, "arch": options.arch, "other": options.triton, "native": options.native,
                "kernel": native.metadata.get("name"), "cubin": f"{options.triton}.cubin",
                "offline": {v: _facts(b)
                            for v, b in builds.items()}}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    print(json.dumps(manifest, indent=1))


def _facts(build) -> dict:
    from ttinspect.report.collect import report_from_build

    report = report_from_build(build)
    return {"registers": report["registers"], "spills": report["spills"]}


_MEASURE = """
import json, sys
from ttinspect.gpu.bench import bench
from ttinspect.gpu.resources_check import compare_resources
ref, size, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
loaded = compare_resources(ref)
timing = bench([ref], [size], rounds=rounds).results[0].variants[0]
print(json.dumps({"n_regs": loaded.gpu_n_regs, "n_spills": loaded.gpu_n_spills, "ms": timing.ms,
                  "tflops": timing.tflops, "max_abs_error": timing.max_abs_error}))
"""


def _measure(ref: str, size: int, rounds: int, env: dict) -> dict:
    done = subprocess.run([sys.executable, "-c", _MEASURE, ref, str(size), str(rounds)], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(options) -> None:
    import triton

    folder = Path(options.dir)
    manifest = json.loads((folder / "manifest.json").read_text())
    if triton.__version__ != manifest["native"]:
        raise SystemExit(f"this GPU's Triton is {triton.__version__}, the export expects {manifest['native']}")
    env = {**os.environ, "TRITON_CACHE_DIR": tempfile.mkdtemp(prefix="swap-")}
    native = _measure(manifest["ref"], options.size, options.rounds, env)
    entries = glob.glob(os.path.join(env["TRITON_CACHE_DIR"], "*", f"{manifest['kernel']}.cubin"))
    if len(entries) != 1:
        raise SystemExit(f"expected one cache entry of {manifest['kernel']}, found {entries}")
    shutil.copy(folder / manifest["cubin"], entries[0])
    swapped = _measure(manifest["ref"], options.size, options.rounds, env)
    result = {**manifest, "device": _device(), "size": options.size, "rounds": options.rounds,
              "native_run": native, "other_run": swapped, "speedup_native_over_other": swapped["ms"] / native["ms"]}
    text = json.dumps(result, indent=1)
    print(text)
    if options.json:
        Path(options.json).write_text(text)


def _device() -> str:
    import torch

    return torch.cuda.get_device_name()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export")
    e.add_argument("ref")
    e.add_argument("--arch", default="sm_90")
    e.add_argument("--triton", required=True)
    e.add_argument("--native", required=True)
    e.add_argument("--out", required=True)
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--size", type=int, default=4096)
    r.add_argument("--rounds", type=int, default=5)
    r.add_argument("--json")
    options = parser.parse_args()
    export(options) if options.command == "export" else run(options)


if __name__ == "__main__":
    main()

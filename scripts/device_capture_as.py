"""On the GPU machine: does `ttinspect capture --as sm_90` on a CPU record what the H100 really launches?

Runs tests/data/capture_as/prog.py twice on the GPU machine — under a real `ttinspect capture` (kernels run on the
H100, the autotuner times each config) and under `ttinspect capture --as sm_90` (the virtual device, nothing
run) — then compares, compile by compile: the kernels, signatures (the specialization), constexprs and options
must be the same sets; each --as record's PTX, compiled offline by `ttinspect dump`, must equal the PTX the GPU
run compiled (read from the run's Triton cache). Writes $OUT/capture_as_gpu.json and prints its summary.

    OUT=out python scripts/device_capture_as.py          # from the repository root, on the GPU machine
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "capture_as"
sys.path.insert(0, str(ROOT))

from ttinspect.capture import read  # noqa: E402  (the repository's ttinspect, whatever is installed)


def ttinspect(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ttinspect", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, timeout=600)


def key(compile_) -> tuple:
    options = {k: v for k, v in compile_.options.items() if k in ("num_warps", "num_stages", "num_ctas", "maxnreg")}
    return (compile_.name, compile_.signature, json.dumps(compile_.constexprs, sort_keys=True),
            json.dumps(options, sort_keys=True))


def gpu_ptx(compile_) -> str | None:
    folder = compile_.triton_cache_dir
    found = sorted(Path(folder).glob("*.ptx")) if folder and Path(folder).is_dir() else []
    return found[0].read_text() if found else None


def main() -> int:
    out = Path(os.environ.get("OUT", "."))
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="capture-as-"))
    for name in ("kern.py", "prog.py"):
        shutil.copy(DATA / name, work / name)
    env = {"TRITON_CACHE_DIR": str(work / "triton-cache")}
    runs = {"gpu": ttinspect("capture", "-o", "gpu.ttcap", "--", sys.executable, "prog.py", cwd=work, env=env),
            "as": ttinspect("capture", "--as", "sm_90", "-o", "as.ttcap", "--", sys.executable, "prog.py", cwd=work,
                            env=env)}
    result: dict = {"runs": {k: {"exit": r.returncode, "stdout": r.stdout[-2000:], "stderr": r.stderr[-4000:]}
                             for k, r in runs.items()}}
    if any(r.returncode for r in runs.values()):
        result["summary"] = "a capture failed"
    else:
        gpu, as_ = read(work / "gpu.ttcap"), read(work / "as.ttcap")
        result["device"] = gpu.header.device
        gpu_by_key = {key(c): c for c in gpu.compiles}
        as_by_key = {key(c): c for c in as_.compiles}
        rows = []
        for k, record in as_by_key.items():
            ref = f"{record.name}#{record.number}"
            row = {"compile": ref, "signature": record.signature, "constexprs": record.constexprs,
                   "on_gpu": k in gpu_by_key}
            if k in gpu_by_key:
                row["ptx"] = compare_ptx(work, env, ref, gpu_by_key[k])
            rows.append(row)
        result["rows"] = rows
        result["only_on_gpu"] = sorted(f"{c.name}#{c.number} {c.signature}" for k, c in gpu_by_key.items()
                                       if k not in as_by_key)
        same = sum(r["on_gpu"] for r in rows)
        identical = sum(r.get("ptx") == "identical" for r in rows)
        result["summary"] = (f"{same}/{len(rows)} --as compiles are compiles of the GPU run; "
                             f"{len(result['only_on_gpu'])} GPU compiles not in the --as capture; "
                             f"PTX identical {identical}/{same}")
    (out / "capture_as_gpu.json").write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(result["summary"])
    return 0


def compare_ptx(work: Path, env: dict, ref: str, on_gpu) -> str:
    """"identical" when the --as record's offline PTX is the GPU run's, "differs", or "unknown: why"."""
    dumped = ttinspect("dump", f"as.ttcap:{ref}", "--stage", "ptx", "--no-header", "--color", "never", cwd=work,
                       env=env)
    if dumped.returncode != 0:
        return f"unknown: no offline dump: {dumped.stderr.strip()[-300:]}"
    real = gpu_ptx(on_gpu)
    if real is None:
        return "unknown: no PTX in the GPU run's Triton cache"
    return "identical" if _body(dumped.stdout) == _body(real) else "differs"


def _body(ptx: str) -> list[str]:
    """The PTX's lines less comments and blank lines (a dump prints a header of its own)."""
    lines = [line.split("//")[0].rstrip() for line in ptx.splitlines()]
    body = [line for line in lines if line.strip()]
    start = next((i for i, line in enumerate(body) if line.startswith(".version")), 0)
    return body[start:]


if __name__ == "__main__":
    sys.exit(main())

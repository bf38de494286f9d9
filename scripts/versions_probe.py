"""What the installed Triton can do, measured by compiling — the rows of docs/versions.md and the data
table ttinspect/targets/releases.py. Run it with each Triton's Python:

    python scripts/versions_probe.py > probe-$(python -c 'import triton; print(triton.__version__)').json
    python scripts/versions_probe.py --markdown probe-*.json      # the table for docs/versions.md

Each probe compiles for real (no GPU needed): a target is "supported" when a vector add and an fp16
tl.dot both compile to a cubin for it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

CAPABILITIES = (70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121)


def _kernels():
    import triton
    import triton.language as tl

    globals()["tl"] = tl  # Triton 3.3 resolves names in a kernel through its module's globals

    @triton.jit
    def add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + o, tl.load(x_ptr + o, mask=o < n) + 1, mask=o < n)

    @triton.jit
    def dot(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr):
        r = tl.arange(0, BLOCK)
        acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
        for k in range(0, K, BLOCK):
            a = tl.load(a_ptr + r[:, None] * K + k + r[None, :])
            b = tl.load(b_ptr + (k + r[:, None]) * BLOCK + r[None, :])
            acc += tl.dot(a, b)
        tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)

    @triton.jit
    def ws(a_desc, b_desc, c_ptr, K, BLOCK: tl.constexpr):
        acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
        for k in tl.range(0, K, BLOCK, warp_specialize=True):
            acc = tl.dot(a_desc.load([0, k]), b_desc.load([k, 0]), acc)
        r = tl.arange(0, BLOCK)
        tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)

    return add, dot, ws


def _compile(fn, signature: dict, constexprs: dict, capability: int, **options):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    attrs = {(i,): [["tt.divisibility", 16]] for i, ty in enumerate(signature.values()) if ty != "constexpr"}
    source = ASTSource(fn, signature, constexprs, attrs)
    return triton.compile(source, target=GPUTarget("cuda", capability, 32), options=options)


def probe_target(cap: int) -> dict:
    add, dot, _ = _kernels()
    kernel = _compile(add, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                      {"BLOCK": 256}, cap)
    ptx = kernel.asm["ptx"]
    version = next(line.split()[1] for line in ptx.splitlines() if line.startswith(".version"))
    target = next(line.split()[1] for line in ptx.splitlines() if line.startswith(".target"))
    try:
        _compile(dot, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "K": "i32", "BLOCK": "constexpr"},
                 {"BLOCK": 32}, cap)
        dot_ok = True
    except Exception as exc:  # the target compiles, its tensor-core path does not
        dot_ok = _first_line(exc)
    return {"ok": True, "dot": dot_ok, "ptx_version": version, "ptx_target": target}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[-1] if text else type(exc).__name__)[:160]


def probe() -> dict:
    import triton

    _, _, ws = _kernels()
    out: dict = {"triton": triton.__version__, "targets": {}, "features": {}}
    for cap in CAPABILITIES:
        # In a child process: LLVM aborts the whole process on a target it cannot emit.
        done = subprocess.run([sys.executable, __file__, "--target", str(cap)], capture_output=True, text=True)
        if done.returncode == 0:
            out["targets"][str(cap)] = json.loads(done.stdout)
        else:
            lines = [ln.strip() for ln in done.stderr.strip().splitlines() if ln.strip()]
            errors = [ln for ln in lines if "error" in ln.lower() or "fatal" in ln.lower()]
            reason = (errors or lines or [f"exit {done.returncode}"])[-1]
            out["targets"][str(cap)] = {"ok": False, "error": reason[:200]}
    for cap in (100,):  # Blackwell, where Triton's automatic warp specialization is aimed
        desc = "tensordesc<fp16[128, 128]>"
        try:
            kernel = _compile(ws, {"a_desc": desc, "b_desc": desc, "c_ptr": "*fp32", "K": "i32", "BLOCK": "constexpr"},
                              {"BLOCK": 128}, cap, num_warps=4, num_stages=3)
            partitions = kernel.asm["ttgir"].count("ttg.warp_specialize")
            out["features"][f"warp_specialize_sm{cap}"] = "partitioned" if partitions else "not partitioned"
        except Exception as exc:
            out["features"][f"warp_specialize_sm{cap}"] = f"error: {_first_line(exc)}"
    out["features"].update(_ttinspect_features())
    return out


def _ttinspect_features() -> dict:
    """The same checks through ttinspect's own API: what a user of this Triton gets."""
    from ttinspect import inspect
    from ttinspect.compile.jit import BOOL_TYPE, KEEPS_PTXAS_LOG

    features: dict = {"bool_type": BOOL_TYPE, "ptxas_log_kept": KEEPS_PTXAS_LOG}
    for variant, arch in (("opt", "sm_80"), ("opt", "sm_90"), ("naive", "sm_89"), ("opt_tma", "sm_90"),
                          ("opt_tma", "sm_100")):
        started = time.perf_counter()
        try:
            r = inspect(variant, arch=arch)
            features[f"{variant}@{arch}"] = {
                "pipeline_depth": r.pipeline_depth, "tensor_core_path": r["tensor_core_path"],
                "shared": r.shared_memory, "registers": r.registers, "spills": r.spills,
                "seconds": round(time.perf_counter() - started, 2)}
        except Exception as exc:
            features[f"{variant}@{arch}"] = {"error": _first_line(exc)}
    ttir = inspect("add", arch="sm_90").build.artifacts.text("ttir")
    features["ir_argument_names"] = "python names" if "%x_ptr" in ttir else "numbered (%arg0)"
    bin_dir = Path(__import__("triton").__file__).parent / "backends" / "nvidia" / "bin"
    for name in ("ptxas", "ptxas-blackwell"):
        try:
            features[name] = subprocess.run([str(bin_dir / name), "--version"], capture_output=True, text=True,
                                            check=True).stdout.strip().splitlines()[-1].replace("Build ", "")
        except (OSError, subprocess.CalledProcessError):
            features[name] = "not shipped"
    return features


def _short_error(text: str) -> str:
    needs = re.search(r"Triton >= [\d.]+", text)
    if needs:
        return f"no (needs {needs[0]})"
    if "tensordesc" in text:
        return "no (no tensor descriptors)"
    return "error: " + text[:50]


def markdown(paths: list[str]) -> str:
    probes = sorted((json.loads(Path(p).read_text()) for p in paths),
                    key=lambda d: tuple(int(x) for x in d["triton"].split(".")[:3]))
    head = "| | " + " | ".join(p["triton"] for p in probes) + " |"
    rule = "|---" * (len(probes) + 1) + "|"
    rows = [head, rule]
    for cap in CAPABILITIES:
        cells = []
        for p in probes:
            t = p["targets"][str(cap)]
            if not t["ok"]:
                cells.append("no")
            elif t.get("dot", True) is not True:
                cells.append(f"yes, but tl.dot fails (PTX {t['ptx_version']})")
            else:
                cells.append(f"yes (PTX {t['ptx_version']})")
        rows.append(f"| sm_{cap} | " + " | ".join(cells) + " |")
    keys = [k for k in probes[-1]["features"]]
    for key in keys:
        cells = []
        for p in probes:
            value = p["features"].get(key, "—")
            if isinstance(value, dict):
                value = (_short_error(value["error"]) if "error" in value else
                         f"depth {value['pipeline_depth'] or 'unknown'}, {value['tensor_core_path']}, "
                         f"{value['registers']} regs")
            elif isinstance(value, str) and value.startswith("error: "):
                value = _short_error(value[len("error: "):])
            cells.append(str(value).replace("|", "/"))
        rows.append(f"| {key} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--markdown"]:
        print(markdown(sys.argv[2:]))
    elif sys.argv[1:2] == ["--target"]:
        print(json.dumps(probe_target(int(sys.argv[2]))))
    else:
        print(json.dumps(probe(), indent=1))

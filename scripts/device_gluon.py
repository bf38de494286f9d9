"""Issue 28 on the H100: every sm_90 Gluon kernel of tests/data/gluon/ launched for real (Gluon's own host
TensorDescriptor, the layouts the COMPILE tables name), its result checked against torch, its time taken,
and the PTX of that launch compared with ttinspect's offline compile of the same specialization — the
signature a launch gets: descriptors with their layout, K divisible by 16. Writes $OUT/gluon_h100.json.

    OUT=out python3 scripts/device_gluon.py        (from the repository root, on the GPU machine)
    python3 scripts/device_gluon.py --launch-only  (each kernel launched once: what a capture records)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import torch
import triton
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from gluon_cases import cases, load  # noqa: E402
from ttinspect.kernel.overrides import parse_settings  # noqa: E402
from ttinspect.refs.resolver import RefOptions, resolve_one  # noqa: E402
from ttinspect.report.collect import report_from_build  # noqa: E402

M = N = K = 2048
# --launch-only: each kernel launched once, nothing compiled offline or timed (the program `ttinspect capture`
# records: scripts/device_gluon_capture.sh)
LAUNCH_ONLY = "--launch-only" in sys.argv
BLOCKS = {"a": [128, 64], "b": [64, 128], "c": [128, 128]}


def descriptor(t: torch.Tensor, block: list[int]) -> TensorDescriptor:
    return TensorDescriptor.from_tensor(t, block, gl.NVMMASharedLayout.get_default_for(block, gl.float16))


def run(case, extra: dict | None = None) -> dict:
    """`extra`: constexprs on top of the case's (check's TTI008 fix: CONVERT=False)."""
    fn = getattr(load(case.file), case.kernel)
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.zeros(M, N, device="cuda", dtype=torch.float16)
    options = case.entry.get("options", {})
    constexprs = {**case.entry.get("constexprs", {}), **(extra or {})}
    if case.kernel == "copy_kernel":
        x, y = a.reshape(-1).float(), torch.empty(M * K, device="cuda")
        n, block = x.numel(), constexprs["BLOCK"]
        launch = lambda: fn[(triton.cdiv(n, block),)](x, y, n, BLOCK=block, **options)  # noqa: E731
        expected, got = x, y
        signature = f"*fp32:16, *fp32:16, i32:16, {block}"
    else:
        grid = (M // 128, N // 128)
        if "c_ptr" in case.entry["signature"]:  # the single-buffer kernel stores through a pointer
            args = (descriptor(a, BLOCKS["a"]), descriptor(b, BLOCKS["b"]), c, K, c.stride(0))
        else:
            args = (descriptor(a, BLOCKS["a"]), descriptor(b, BLOCKS["b"]), descriptor(c, BLOCKS["c"]), K)
        launch = lambda: fn[grid](*args, **constexprs, **options)  # noqa: E731
        expected, got = (a.float() @ b.float()), c
        signature = case.signature(launched=True)
    compiled = launch()
    torch.cuda.synchronize()
    if LAUNCH_ONLY:
        return {"case": case.id}
    error = (got.float() - expected.float()).abs().max().item()
    ms = triton.testing.do_bench(launch)
    settings = [f"{k}={v}" for k, v in {**options, **(extra or {})}.items()]
    offline = resolve_one(case.ref, RefOptions(parse_settings(settings), {}, signature, None, "sm_90"))
    label = case.id + "".join(f":{k}={v}" for k, v in (extra or {}).items())
    return {"case": label, "signature": signature, "max_abs_error": error,
            "ms": ms, "tflops": (2 * M * N * K / ms / 1e9) if case.kernel != "copy_kernel" else None,
            "ptx_equal": offline.artifacts.text("ptx") == compiled.asm["ptx"],
            "launched_ptx_lines": compiled.asm["ptx"].count("\n"), "n_regs": compiled.n_regs,
            "n_spills": compiled.n_spills, "offline_registers": _fact(offline, "registers"),
            "offline_spills": _fact(offline, "spills")}


def _fact(build, key: str):
    return next((f.value for f in report_from_build(build).facts if f.key == key), None)


def main() -> None:
    rows = []
    runs = [(c, None) for c in cases() if c.arch == "sm_90"]
    runs += [(c, {"CONVERT": False}) for c, _ in runs if c.kernel == "matmul_kernel_convert"]
    for round_ in ((1,) if LAUNCH_ONLY else (1, 2)):  # the first round warms the clocks; the second's are kept
        rows = []
        for case, extra in runs:
            try:
                rows.append(run(case, extra))
            except Exception as error:  # one kernel's failure is a row, not the end of the run
                rows.append({"case": case.id, "error": f"{type(error).__name__}: {error}"[:2000]})
            print(round_, json.dumps(rows[-1]), flush=True)
    if LAUNCH_ONLY:
        return
    out = Path(os.environ.get("OUT", ".")) / "gluon_h100.json"
    out.write_text(json.dumps({"device": torch.cuda.get_device_name(), "triton": triton.__version__,
                               "torch": torch.__version__, "M": M, "N": N, "K": K, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

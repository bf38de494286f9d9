"""On a GPU machine: time many (kernel, shape, config) points, the dataset `ttinspect predict` is checked
against (docs/predict.md, scripts/perf_accuracy.py).

    PYTHONPATH=$PWD python scripts/perf_dataset.py [OUT_DIR]     # writes OUT_DIR/perf_points.json ($OUT by default)

Kinds: fp16/bf16 matmuls over the shipped variants' autotune lists (kernels/registry.py: `opt`, `tutorial`,
`opt_tma`), an fp8 matmul, attention forward (`attn`), softmax, RMS norm, elementwise add, a row reduction and
a split-K GEMV (tests/data/perf_kernels/), each over 2-3 shapes. Every distinct compile is made first in
parallel worker processes (each warms Triton's on-disk cache; the main process then finds it there), then
each point is launched once and timed with `triton.testing.do_bench` (median; do_bench flushes L2 before
each repetition). A point that fails — to compile, to launch (shared memory), or for lack of time — is
recorded with its error; nothing stops the run. The whole run keeps to a time budget (TIME_BUDGET_S).

Each point records the kernel as ttinspect takes it (`ref`: a variant with its settings, or
tests/data/perf_kernels/x.py:kernel; `kernel`: the file:function either way), its `--arg`-style arguments
(`*fp16`, ints, floats, `tensordesc<fp16[128, 64]>`), the constexprs, num_warps/num_stages, the grid as 3
ints and the measured ms. Needs only torch and Triton (3.6 on the device machine), not an installed ttinspect.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import multiprocessing
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kernels.registry import OPT_AUTOTUNE_CONFIGS, TUTORIAL_AUTOTUNE_CONFIGS, VARIANTS  # noqa: E402

TIME_BUDGET_S = 390  # whole run; the GPU machine's brief is "under 7 minutes"
COMPILE_BUDGET_S = 170  # the parallel compile phase; what is left compiles at its first launch
WARMUP_MS, REP_MS = 10, 40  # do_bench's; the median of >= 1 repetition
PERF_KERNELS = "tests/data/perf_kernels"
START = time.monotonic()


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def next_pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def _settings(items: dict[str, Any]) -> str:
    return ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in items.items())


def point(kind: str, shape: str, kernel: str, args: dict, tensors: dict, constexprs: dict, options: dict,
          grid: tuple, ref: str | None = None) -> dict:
    """One point. `tensors`: name -> [shape, torch dtype name] (or ["desc", tensor name, block]) — how the
    GPU side allocates what `args` names by type only."""
    grid3 = tuple(grid) + (1,) * (3 - len(grid))
    return {"kind": kind, "shape": shape, "group": f"{kind} {shape}", "ref": ref or kernel, "kernel": kernel,
            "args": args, "constexprs": constexprs, "num_warps": options["num_warps"],
            "num_stages": options["num_stages"], "grid": list(grid3), "tensors": tensors}


def variant_ref(name: str, config: dict, problem: dict) -> str:
    return f"{name}:{_settings({**config, **problem})}"


def _kernel_file(variant_name: str) -> str:
    variant = next(v for v in VARIANTS if v.name == variant_name)
    module, function = variant.kernel.split(":")
    return f"kernels/{module.split('.')[-1]}.py:{function}"


TORCH_DTYPE = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp8e4nv": "float8_e4m3fn"}


def matmul_points(variant: str, dtype: str, shapes, configs, kind: str) -> list[dict]:
    points = []
    for M, N, K in shapes:
        for cfg in configs:
            constexprs = {k: v for k, v in cfg.items() if k not in ("num_warps", "num_stages")}
            options = {"num_warps": cfg["num_warps"], "num_stages": cfg["num_stages"]}
            args = {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": f"*{dtype}", "M": M, "N": N, "K": K,
                    "stride_am": K, "stride_ak": 1, "stride_bk": N, "stride_bn": 1, "stride_cm": N, "stride_cn": 1}
            tensors = {"a_ptr": [[M, K], TORCH_DTYPE[dtype]], "b_ptr": [[K, N], TORCH_DTYPE[dtype]],
                       "c_ptr": [[M, N], TORCH_DTYPE[dtype]]}
            grid = (cdiv(M, cfg["BLOCK_SIZE_M"]) * cdiv(N, cfg["BLOCK_SIZE_N"]),)
            ref = variant_ref(variant, cfg, {"M": M, "N": N, "K": K, "dtype": dtype})
            points.append(point(kind, f"{M}x{N}x{K}", _kernel_file(variant), args, tensors, constexprs, options,
                                grid, ref))
    return points


def fp8_points(shapes) -> list[dict]:
    points = []
    for M, N, K in shapes:
        for cfg in OPT_AUTOTUNE_CONFIGS:
            constexprs = {k: v for k, v in cfg.items() if k not in ("num_warps", "num_stages")}
            options = {"num_warps": cfg["num_warps"], "num_stages": cfg["num_stages"]}
            # B stored (N, K): K-major, stride_bk = 1.
            args = {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*fp16", "M": M, "N": N, "K": K,
                    "stride_am": K, "stride_ak": 1, "stride_bk": 1, "stride_bn": K, "stride_cm": N, "stride_cn": 1}
            tensors = {"a_ptr": [[M, K], "float8_e4m3fn"], "b_ptr": [[N, K], "float8_e4m3fn"],
                       "c_ptr": [[M, N], "float16"]}
            grid = (cdiv(M, cfg["BLOCK_SIZE_M"]) * cdiv(N, cfg["BLOCK_SIZE_N"]),)
            points.append(point("matmul_fp8", f"{M}x{N}x{K}", f"{PERF_KERNELS}/matmul_fp8.py:matmul_fp8_kernel",
                                args, tensors, constexprs, options, grid))
    return points


def tma_points(shapes, sms: int) -> list[dict]:
    variant = next(v for v in VARIANTS if v.name == "opt_tma")
    points = []
    for M, N, K in shapes:
        for cfg in variant.autotune_configs:
            cfg = {**cfg, "NUM_SMS": sms}
            constexprs = {k: v for k, v in cfg.items() if k not in ("num_warps", "num_stages")}
            options = {"num_warps": cfg["num_warps"], "num_stages": cfg["num_stages"]}
            bm, bn, bk = cfg["BLOCK_SIZE_M"], cfg["BLOCK_SIZE_N"], cfg["BLOCK_SIZE_K"]
            args = {"a_desc": f"tensordesc<fp16[{bm}, {bk}]>", "b_desc": f"tensordesc<fp16[{bk}, {bn}]>",
                    "c_desc": f"tensordesc<fp16[{bm}, {bn}]>", "M": M, "N": N, "K": K}
            tensors = {"a": [[M, K], "float16"], "b": [[K, N], "float16"], "c": [[M, N], "float16"],
                       "a_desc": ["desc", "a", [bm, bk]], "b_desc": ["desc", "b", [bk, bn]],
                       "c_desc": ["desc", "c", [bm, bn]]}
            grid = (min(sms, cdiv(M, bm) * cdiv(N, bn)),)
            ref = variant_ref("opt_tma", cfg, {"M": M, "N": N, "K": K, "dtype": "fp16"})
            points.append(point("matmul_tma", f"{M}x{N}x{K}", _kernel_file("opt_tma"), args, tensors, constexprs,
                                options, grid, ref))
    return points


def attention_points() -> list[dict]:
    points = []
    for Z, n_ctx, d in ((32, 1024, 64), (8, 4096, 64), (16, 2048, 128)):
        for bm in (64, 128):
            for bn in (32, 64, 128):
                for warps in (4, 8):
                    for stages in (2, 3, 4):
                        constexprs = {"HEAD_DIM": d, "BLOCK_M": bm, "BLOCK_N": bn, "CAUSAL": False}
                        args = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp16", "sm_scale": d ** -0.5,
                                "N_CTX": n_ctx, "stride_qm": d, "stride_kn": d, "stride_vn": d, "stride_om": d}
                        tensors = {name: [[Z, n_ctx, d], "float16"] for name in ("Q", "K", "V", "Out")}
                        ref = variant_ref("attn", {**constexprs, "num_warps": warps, "num_stages": stages},
                                          {"Z": Z, "N_CTX": n_ctx, "dtype": "fp16"})
                        points.append(point("attention", f"Z{Z}xN{n_ctx}xD{d}", _kernel_file("attn"), args,
                                            tensors, constexprs, {"num_warps": warps, "num_stages": stages},
                                            (n_ctx // bm, Z), ref))
    return points


def softmax_points(sms: int) -> list[dict]:
    points = []
    for n_rows, n_cols, dtype in ((4096, 1024, "fp32"), (16384, 4096, "fp16"), (2048, 8192, "fp32")):
        for warps in (1, 2, 4, 8, 16):
            for stages in (1, 2, 3, 4):
                block = next_pow2(n_cols)
                args = {"i_ptr": f"*{dtype}", "o_ptr": f"*{dtype}", "i_stride": n_cols, "o_stride": n_cols,
                        "n_rows": n_rows, "n_cols": n_cols}
                tensors = {"i_ptr": [[n_rows, n_cols], TORCH_DTYPE[dtype]],
                           "o_ptr": [[n_rows, n_cols], TORCH_DTYPE[dtype]]}
                constexprs = {"BLOCK_SIZE": block, "num_stages": stages}
                ref = variant_ref("softmax", {"BLOCK_SIZE": block, "num_warps": warps, "num_stages": stages},
                                  {"n_rows": n_rows, "n_cols": n_cols, "dtype": dtype})
                points.append(point("softmax", f"{n_rows}x{n_cols} {dtype}", _kernel_file("softmax"), args,
                                    tensors, constexprs, {"num_warps": warps, "num_stages": stages},
                                    (min(n_rows, 4 * sms),), ref))
    return points


def add_points() -> list[dict]:
    points = []
    for n, dtype in ((1 << 20, "fp32"), (1 << 24, "fp32"), (1 << 26, "fp16")):
        for block in (256, 512, 1024, 2048, 4096, 8192):
            for warps in (1, 2, 4, 8):
                args = {"x_ptr": f"*{dtype}", "y_ptr": f"*{dtype}", "output_ptr": f"*{dtype}", "n_elems": n}
                tensors = {name: [[n], TORCH_DTYPE[dtype]] for name in ("x_ptr", "y_ptr", "output_ptr")}
                ref = variant_ref("add", {"BLOCK_SIZE": block, "num_warps": warps, "num_stages": 3},
                                  {"n_elems": n, "dtype": dtype})
                points.append(point("add", f"{n} {dtype}", _kernel_file("add"), args, tensors,
                                    {"BLOCK_SIZE": block}, {"num_warps": warps, "num_stages": 3},
                                    (cdiv(n, block),), ref))
    return points


def rms_norm_points() -> list[dict]:
    points = []
    for rows, cols, dtype in ((8192, 4096, "fp16"), (32768, 1024, "bf16"), (2048, 16384, "fp32")):
        for block in (256, 512, 1024, 2048, 4096):
            for warps in (1, 2, 4, 8):
                args = {"x_ptr": f"*{dtype}", "w_ptr": f"*{dtype}", "y_ptr": f"*{dtype}", "stride_row": cols,
                        "N": cols, "eps": 1e-6}
                tensors = {"x_ptr": [[rows, cols], TORCH_DTYPE[dtype]], "w_ptr": [[cols], TORCH_DTYPE[dtype]],
                           "y_ptr": [[rows, cols], TORCH_DTYPE[dtype]]}
                points.append(point("rms_norm", f"{rows}x{cols} {dtype}", f"{PERF_KERNELS}/rms_norm.py:rms_norm_kernel",
                                    args, tensors, {"BLOCK_N": block}, {"num_warps": warps, "num_stages": 2},
                                    (rows,)))
    return points


def row_sum_points() -> list[dict]:
    points = []
    for M, N, dtype in ((4096, 4096, "fp32"), (65536, 512, "fp16"), (1024, 32768, "fp32")):
        for bm in (1, 4, 16):
            for bn in (128, 512, 2048):
                for warps in (2, 4, 8):
                    args = {"x_ptr": f"*{dtype}", "out_ptr": "*fp32", "M": M, "N": N, "stride_m": N}
                    tensors = {"x_ptr": [[M, N], TORCH_DTYPE[dtype]], "out_ptr": [[M], "float32"]}
                    points.append(point("row_sum", f"{M}x{N} {dtype}", f"{PERF_KERNELS}/row_sum.py:row_sum_kernel",
                                        args, tensors, {"BLOCK_M": bm, "BLOCK_N": bn},
                                        {"num_warps": warps, "num_stages": 2}, (cdiv(M, bm),)))
    return points


def gemv_points() -> list[dict]:
    points = []
    for M, K in ((4096, 4096), (16384, 4096), (4096, 14336)):
        for bm in (16, 64, 128):
            for bk in (64, 128, 256):
                for split in (1, 4, 16):
                    warps = 4 if bm * bk <= 8192 else 8
                    args = {"a_ptr": "*fp16", "x_ptr": "*fp16", "y_ptr": "*fp32", "M": M, "K": K, "stride_am": K}
                    tensors = {"a_ptr": [[M, K], "float16"], "x_ptr": [[K], "float16"], "y_ptr": [[M], "float32"]}
                    points.append(point("gemv_splitk", f"{M}x{K}", f"{PERF_KERNELS}/gemv_splitk.py:gemv_splitk_kernel",
                                        args, tensors, {"BLOCK_M": bm, "BLOCK_K": bk, "SPLIT_K": split},
                                        {"num_warps": warps, "num_stages": 2}, (cdiv(M, bm), split)))
    return points


def all_points(sms: int, hopper: bool) -> list[dict]:
    square = ((4096, 4096, 4096), (2048, 2048, 2048))
    points = (matmul_points("opt", "fp16", (*square, (1024, 8192, 2048)), OPT_AUTOTUNE_CONFIGS, "matmul_fp16")
              + matmul_points("opt", "bf16", ((4096, 4096, 4096), (2048, 4096, 1024)), OPT_AUTOTUNE_CONFIGS,
                              "matmul_bf16")
              + matmul_points("tutorial", "fp16", (*square, (1024, 8192, 2048)), TUTORIAL_AUTOTUNE_CONFIGS,
                              "matmul_tutorial")
              + fp8_points(((4096, 4096, 4096), (2048, 2048, 8192)))
              + (tma_points((*square, (8192, 8192, 1024)), sms) if hopper else [])
              + attention_points() + softmax_points(sms) + add_points() + rms_norm_points() + row_sum_points()
              + gemv_points())
    for index, p in enumerate(points):
        p["id"] = index
    return points


# --- the GPU side -------------------------------------------------------------------------------------

_MODULES: dict[str, Any] = {}


def load_kernel(ref: str):
    """`kernels/x.py:fn` (imported as the package `kernels`) or `tests/data/perf_kernels/x.py:fn` (by path)."""
    path, function = ref.rsplit(":", 1)
    if path not in _MODULES:
        if path.startswith("kernels/"):
            _MODULES[path] = importlib.import_module("kernels." + Path(path).stem)
        else:
            name = "perf_kernels_" + Path(path).stem
            spec = importlib.util.spec_from_file_location(name, ROOT / path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            _MODULES[path] = module
    return getattr(_MODULES[path], function)


_TENSORS: dict[tuple, Any] = {}


def _tensor(name: str, shape, dtype_name: str):
    """One buffer per argument name, shape and dtype: kept across points, never shared by two arguments
    (A and B of a square matmul in one buffer would halve its DRAM traffic)."""
    import torch

    key = (name, tuple(shape), dtype_name)
    if key not in _TENSORS:
        dtype = getattr(torch, dtype_name)
        if dtype.is_floating_point and dtype.itemsize == 1:
            _TENSORS[key] = torch.randn(*shape, device="cuda", dtype=torch.float16).to(dtype)
        else:
            _TENSORS[key] = torch.randn(*shape, device="cuda", dtype=dtype)
    return _TENSORS[key]


def launch_kwargs(p: dict) -> dict:
    """The kernel's keyword arguments: tensors allocated (and kept) per shape and dtype, descriptors built."""
    from triton.tools.tensor_descriptor import TensorDescriptor

    made: dict[str, Any] = {}
    for name, spec in p["tensors"].items():
        if spec[0] != "desc":
            made[name] = _tensor(name, spec[0], spec[1])
    for name, spec in p["tensors"].items():
        if spec[0] == "desc":
            made[name] = TensorDescriptor.from_tensor(made[spec[1]], list(spec[2]))
    kwargs = {name: made.get(name, value) for name, value in p["args"].items()}
    return {**kwargs, **p["constexprs"], "num_warps": p["num_warps"], "num_stages": p["num_stages"]}


def _error(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:400]


def compile_one(p: dict) -> tuple[int, str | None]:
    """In a worker: compile the point without launching (fills Triton's cache)."""
    try:
        load_kernel(p["kernel"]).warmup(grid=tuple(p["grid"]), **launch_kwargs(p))
        return p["id"], None
    except BaseException as error:  # recorded; the launch will say it again if it is real
        return p["id"], _error(error)


def _compile_key(p: dict) -> str:
    """Points that compile to one binary: same kernel, constexprs, options and specialization of the ints."""
    ints = {k: (v % 16 == 0, v == 1) if isinstance(v, int) else v for k, v in p["args"].items()}
    return json.dumps([p["kernel"], p["constexprs"], p["num_warps"], p["num_stages"], ints], sort_keys=True)


def compile_all(points: list[dict], workers: int) -> dict[int, str]:
    unique = list({_compile_key(p): p for p in points}.values())
    print(f"compiling {len(unique)} distinct kernels for {len(points)} points in {workers} processes", flush=True)
    errors: dict[int, str] = {}
    context = multiprocessing.get_context("spawn")
    with context.Pool(workers) as pool:
        results = pool.imap_unordered(compile_one, unique)
        done = 0
        while done < len(unique):
            remaining = COMPILE_BUDGET_S - (time.monotonic() - START)
            try:
                pid, error = results.next(timeout=max(1.0, remaining))
            except multiprocessing.TimeoutError:
                print(f"compile phase over its budget after {done}/{len(unique)}: the rest compile at launch",
                      flush=True)
                pool.terminate()
                break
            done += 1
            if error:
                errors[pid] = error
    print(f"compiled in {time.monotonic() - START:.0f}s, {len(errors)} compile errors", flush=True)
    return errors


def bench(p: dict) -> float:
    import torch
    import triton.testing

    fn = load_kernel(p["kernel"])
    kwargs = launch_kwargs(p)
    grid = tuple(p["grid"])
    fn[grid](**kwargs)  # the first launch: compile (from cache) and any launch error
    torch.cuda.synchronize()
    return float(triton.testing.do_bench(lambda: fn[grid](**kwargs), warmup=WARMUP_MS, rep=REP_MS,
                                         return_mode="median"))


def interleaved(points: list[dict]) -> list[dict]:
    """Round-robin over the groups, so a run cut short by the budget still covers every kind."""
    by_group: dict[str, list[dict]] = {}
    for p in points:
        by_group.setdefault(p["group"], []).append(p)
    queues = list(by_group.values())
    order = []
    while any(queues):
        for queue in queues:
            if queue:
                order.append(queue.pop(0))
    return order


def write(out: Path, machine: dict, points: list[dict]) -> None:
    rows = [{k: v for k, v in p.items() if k != "tensors"} for p in points]
    payload = {"machine": machine, "points": sorted(rows, key=lambda r: r["id"])}
    tmp = out / "perf_points.json.tmp"
    tmp.write_text(json.dumps(payload, indent=1))
    os.replace(tmp, out / "perf_points.json")


def main(out: Path) -> int:
    import torch
    import triton

    out.mkdir(parents=True, exist_ok=True)
    props = torch.cuda.get_device_properties(0)
    major, minor = torch.cuda.get_device_capability(0)
    machine = {"gpu": torch.cuda.get_device_name(0), "sms": props.multi_processor_count,
               "capability": f"sm_{major}{minor}", "triton": triton.__version__, "torch": torch.__version__,
               "do_bench": {"warmup_ms": WARMUP_MS, "rep_ms": REP_MS, "return_mode": "median"}}
    print(json.dumps(machine), flush=True)
    points = all_points(props.multi_processor_count, hopper=major >= 9)
    print(f"{len(points)} points", flush=True)
    compile_errors = compile_all(points, workers=min(16, os.cpu_count() or 1))
    timed = 0
    for n, p in enumerate(interleaved(points)):
        if time.monotonic() - START > TIME_BUDGET_S:
            p["ms"], p["error"] = None, "not timed: the run's time budget ran out"
            continue
        try:
            p["ms"], p["error"] = bench(p), None
            timed += 1
        except BaseException as error:  # a config that cannot run is data too
            p["ms"] = None
            p["error"] = _error(error)
            if p["id"] in compile_errors and compile_errors[p["id"]] != p["error"]:
                p["error"] += f" (compile: {compile_errors[p['id']]})"
            if isinstance(error, KeyboardInterrupt):
                raise
            if "illegal" in str(error).lower():  # the CUDA context is lost: nothing after it can be timed
                traceback.print_exc()
                break
        if n % 100 == 99:
            write(out, machine, points)
            print(f"{n + 1} points, {timed} timed, {time.monotonic() - START:.0f}s", flush=True)
    for p in points:
        p.setdefault("ms", None)
        p.setdefault("error", "not timed: the CUDA context was lost before it")
    machine["seconds"] = round(time.monotonic() - START, 1)
    write(out, machine, points)
    failed = [p for p in points if p["ms"] is None]
    print(f"{len(points) - len(failed)}/{len(points)} points timed in {machine['seconds']}s; "
          f"{len(failed)} failed", flush=True)
    for p in failed[:20]:
        print(f"  {p['group']} {p['constexprs']} w{p['num_warps']} s{p['num_stages']}: {p['error']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", "out"))))

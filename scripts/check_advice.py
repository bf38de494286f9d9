"""On a GPU: does the fix a `ttinspect check` finding suggests change the time the way the finding says?

Each pair launches the same kernel of benchmarks/advice_kernels.py the way a user would — before
(the finding's situation) and after (the suggested fix) — and times both with triton.testing.do_bench
(median), alternating before/after over several rounds so clock drift hits both alike. It also records
what the launched kernel really is (n_regs, n_spills, global load widths in its PTX), so the table
shows the finding's evidence beside the time. The matmul rules (spills, mma.sync on Hopper) are
measured with `ttinspect bench` on shipped variants (scripts/device_check_advice.sh).

    python scripts/check_advice.py [--rounds 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

import torch
import triton
import triton.testing

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import advice_kernels as K  # noqa: E402

ROWS = K.ROWS


def _widths(ptx: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for match in re.finditer(r"\b(ld\.global(?:\.\w+)*|cp\.async\.(?:cg|ca)\.shared\.global(?:\.\w+)*)", ptx):
        found[match[1]] = found.get(match[1], 0) + 1
    return found


def _facts(compiled) -> dict:
    return {"n_regs": compiled.n_regs, "n_spills": compiled.n_spills, "shared": compiled.metadata.shared,
            "loads": _widths(compiled.asm["ptx"])}


def narrow_pair():
    """Rows 4104 fp16 apart (not a multiple of 16: Triton does not know the rows are aligned) vs the
    same data with the row stride padded to 4112."""
    n = 4096
    out = torch.empty(ROWS, n, device="cuda", dtype=torch.float16)
    cases = {}
    for name, stride in (("before", 4104), ("after", 4112)):
        x = torch.randn(ROWS, stride, device="cuda", dtype=torch.float16)

        def run(x=x, stride=stride):
            return K.row_scale[(ROWS,)](x, out, stride, n, n, 2.0, BLOCK=4096, num_warps=8)

        compiled = run()
        torch.testing.assert_close(out, x[:, :n] * 2.0)
        cases[name] = (run, _facts(compiled), f"stride_x={stride}")
    return "narrow global loads (row stride not divisible by 16)", 2 * ROWS * n * 2, cases


def occupancy_pair():
    """A 16384-wide fp32 softmax row per program: 4 warps (registers limit occupancy) vs 16 warps."""
    n = 16384
    x = torch.randn(ROWS // 4, n, device="cuda", dtype=torch.float32)
    out = torch.empty_like(x)
    cases = {}
    for name, warps in (("before", 4), ("after", 16)):
        def run(warps=warps):
            return K.softmax_rows[(x.shape[0],)](x, out, n, n, BLOCK=n, num_warps=warps)

        compiled = run()
        torch.testing.assert_close(out, torch.softmax(x, dim=1))
        cases[name] = (run, _facts(compiled), f"num_warps={warps}")
    return "occupancy limited by registers", 2 * x.numel() * 4, cases


def pipeline_pair():
    """A column sum walking M in a loop with num_stages=4 but no tl.dot (not pipelined) vs the loop
    written as tl.range(..., num_stages=4)."""
    m = n = 16384
    x = torch.randn(m, n, device="cuda", dtype=torch.float16)
    out = torch.empty(n, device="cuda", dtype=torch.float32)
    cases = {}
    for name, pipeline in (("before", False), ("after", True)):
        def run(pipeline=pipeline):
            return K.column_sum[(n // 128,)](x, out, m, n, n, BLOCK_M=64, BLOCK_N=128, PIPELINE=pipeline,
                                             num_warps=4, num_stages=4)

        compiled = run()
        torch.testing.assert_close(out, x.float().sum(0), rtol=1e-3, atol=0.5)
        cases[name] = (run, _facts(compiled), f"PIPELINE={pipeline}")
    return "loop not pipelined although num_stages=4", m * n * 2, cases


def measure(rounds: int) -> list[dict]:
    rows = []
    for make in (narrow_pair, occupancy_pair, pipeline_pair):
        title, nbytes, cases = make()
        times = {name: [] for name in cases}
        for _ in range(rounds):
            for name, (run, _, _) in cases.items():
                times[name].append(triton.testing.do_bench(run, warmup=50, rep=200, return_mode="median"))
        row = {"finding": title, "bytes": nbytes}
        for name, (_, facts, setting) in cases.items():
            ms = statistics.median(times[name])
            row[name] = {"setting": setting, "ms": ms, "GB/s": nbytes / ms / 1e6, **facts}
        row["speedup"] = row["before"]["ms"] / row["after"]["ms"]
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = measure(args.rounds)
    print(f"{torch.cuda.get_device_name()} · Triton {triton.__version__} · torch {torch.__version__} · "
          f"median of {args.rounds} alternating rounds of do_bench medians")
    print("| finding | before | after | before ms | after ms | speedup | before evidence | after evidence |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        b, a = row["before"], row["after"]

        def evidence(c):
            loads = ", ".join(f"{k}×{v}" for k, v in c["loads"].items())
            return f"regs {c['n_regs']}, spills {c['n_spills']}, smem {c['shared']} B, {loads}"

        print(f"| {row['finding']} | {b['setting']} | {a['setting']} | {b['ms']:.4f} | {a['ms']:.4f} | "
              f"{row['speedup']:.2f}× | {evidence(b)} | {evidence(a)} |")
    if args.json:
        args.json.write_text(json.dumps({"device": torch.cuda.get_device_name(), "triton": triton.__version__,
                                         "rows": rows}, indent=2))


if __name__ == "__main__":
    main()

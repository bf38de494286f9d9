"""The golden table of docs/amd.md: shipped matmuls × AMD targets × num_stages 1–4, each fact as ttinspect
reports it beside its witnesses — the pipeline depth's two (the stream pipeliner's prologue, the LDS ring),
the registers' two (LLVM's report, the code-object notes), Triton's metadata. Compile-only.

    python scripts/amd_table.py > /tmp/table.md                   # the installed Triton
    python scripts/amd_table.py --triton 3.6.0 > /tmp/table36.md  # another one (ttinspect toolchains)
"""

from __future__ import annotations

import argparse
import sys

from ttinspect import inspect
from ttinspect.errors import TTInspectError
from ttinspect.facts.amd_pipeline import witnesses
from ttinspect.dialects.amdgcn import parse_amdgcn
from ttinspect.dialects.mlir import parse_mlir

VARIANTS = ("naive", "opt", "square", "tutorial", "tileon")
TARGETS = ("gfx942", "gfx950")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--triton", default=None, help="a Triton release other than the installed one")
    args = parser.parse_args()
    print("| variant | target | num_stages | depth | prologue (K steps ahead) | LDS ring | matrix ops / iter "
          "| VGPRs (report / notes) | AGPRs | waves/SIMD (LLVM / with LDS) | LDS B (metadata) | agree |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for variant in VARIANTS:
        for arch in TARGETS:
            for stages in (1, 2, 3, 4):
                try:
                    r = inspect(variant, arch=arch, num_stages=stages, triton=args.triton)
                except TTInspectError as error:  # e.g. more LDS than the target has: what a launch says
                    print(f"| {variant} | {arch} | {stages} | {str(error).split(';')[0]} ||||||||| |")
                    continue
                m = parse_amdgcn(r.build.artifacts.text("amdgcn"))
                ttgir = r.build.artifacts.text("ttgir")
                release = tuple(int(p) for p in r.triton_version.split(".")[:2])
                prologue, ring = witnesses(parse_mlir(ttgir), ttgir, r.build.target, release)
                total = m.report.get("TotalNumVgprs", m.report.get("NumVgprs"))
                agree = (r["registers"] == total == m.note_int("vgpr_count") and r.pipeline_depth == stages
                         and prologue.depth == ring.depth == stages
                         and r["shared_memory"] == r.build.metadata["shared"])
                ring_text = ring.text.split(" (")[0] if ring.depth and ring.depth > 1 else "none"
                print(f"| {variant} | {arch} | {stages} | {r.pipeline_depth} | {(prologue.depth or 0) - 1} | "
                      f"{ring_text} | {r['loop_tensor_core_ops']} | {total} / {m.note_int('vgpr_count')} | "
                      f"{r['agprs']} | {m.report.get('Occupancy')} / {r['waves_per_simd']} | {r['shared_memory']} | "
                      f"{'yes' if agree else 'NO'} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()

"""The golden table of docs/amd.md: shipped matmuls × AMD targets × num_stages 1–4, each fact as ttinspect
reports it beside its witnesses (LLVM's report, the code-object notes, Triton's metadata). Compile-only.

    python scripts/amd_table.py > /tmp/table.md     # then paste into docs/amd.md
"""

from __future__ import annotations

import sys

from ttinspect import inspect
from ttinspect.errors import TTInspectError
from ttinspect.parse.amdgcn import parse_amdgcn

VARIANTS = ("naive", "opt", "square", "tutorial", "tileon")
TARGETS = ("gfx942", "gfx950")


def main() -> None:
    print("| variant | target | num_stages | depth | LDS buffers | matrix ops / iter | VGPRs (report / notes) "
          "| AGPRs | waves/SIMD (LLVM / with LDS) | LDS B (metadata) | agree |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for variant in VARIANTS:
        for arch in TARGETS:
            for stages in (1, 2, 3, 4):
                try:
                    r = inspect(variant, arch=arch, num_stages=stages)
                except TTInspectError as error:  # e.g. more LDS than the target has: what a launch says
                    print(f"| {variant} | {arch} | {stages} | {str(error).split(';')[0]} |||||||| |")
                    continue
                m = parse_amdgcn(r.build.artifacts.text("amdgcn"))
                total = m.report.get("TotalNumVgprs", m.report.get("NumVgprs"))
                agree = (r["registers"] == total == m.note_int("vgpr_count")
                         and r.pipeline_depth == stages and r["shared_memory"] == r.build.metadata["shared"])
                buffers = r["shared_buffers"][0].split("x")[0] if r["shared_buffers"] else "-"
                print(f"| {variant} | {arch} | {stages} | {r.pipeline_depth} | {buffers} | "
                      f"{r['loop_tensor_core_ops']} | {total} / {m.note_int('vgpr_count')} | {r['agprs']} | "
                      f"{m.report.get('Occupancy')} / {r['waves_per_simd']} | {r['shared_memory']} | "
                      f"{'yes' if agree else 'NO'} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()

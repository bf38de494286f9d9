"""On a GPU machine: every per-loop fact (and the kernel's depth and warp-specialization facts) read
from the JIT's own artifacts after a real launch equals the offline compile's, and the PTX is identical.

    python scripts/device_loop_facts.py OUT_DIR      # writes OUT_DIR/loop_facts.json, prints a table

Run by `bash scripts/device_loop_facts.sh` on the H100/H200 machine (docs/facts.md, docs/h100.md).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from ttinspect.engine.builds import build
from ttinspect.facts.loops import kernel_loop_facts
from ttinspect.facts.ptx import PtxView
from ttinspect.gpu.jit_check import jit_stages
from ttinspect.dialects.mlir import parse_mlir
from ttinspect.dialects.ptx import parse_ptx
from ttinspect.report.collect import report_from_build
from ttinspect.kernel.overrides import resolve

MATMUL = {"M": 2048, "N": 2048, "K": 2048}
CASES = [  # (variant, problem/config overrides)
    ("naive", MATMUL), ("opt", MATMUL), ("opt", {**MATMUL, "num_stages": 2}),
    ("opt", {**MATMUL, "num_stages": 5}),
    ("square", MATMUL), ("tutorial", MATMUL), ("tileon", MATMUL), ("l2_g0", MATMUL), ("l2_g8", MATMUL),
    ("ladder_g8", MATMUL), ("ladder_g8_s4", MATMUL), ("ladder_g8_s4_mod", MATMUL),
    ("opt_tma", MATMUL), ("opt_tma", {**MATMUL, "num_stages": 2}),
    ("attn", {"Z": 4, "N_CTX": 1024}), ("attn", {"Z": 4, "N_CTX": 1024, "num_stages": 2}),
    ("attn", {"Z": 4, "N_CTX": 1024, "num_stages": 4, "BLOCK_M": 64}),
    ("attn", {"Z": 4, "N_CTX": 1024, "CAUSAL": True}),  # two loops from one helper
    ("softmax", {}), ("add", {}),
]


def _facts(ttgir: str, ttir: str, ptx_text: str, num_stages) -> dict:
    ptx = parse_ptx(ptx_text)
    depth, facts = kernel_loop_facts(parse_mlir(ttgir), parse_mlir(ttir, stage="ttir"), ptx, PtxView.of(ptx),
                                     ptx_text, num_stages)
    return {f.key: (f.value if f.value is not None else f"unknown: {f.unknown}") for f in [depth, *facts]}


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    rows, bad = [], 0
    for variant, overrides in CASES:
        resolved = resolve(variant, overrides)
        offline = build(resolved, arch="native")
        report = report_from_build(offline, sass=False)
        off = {f.key: (f.value if f.value is not None else f"unknown: {f.unknown}") for f in report.facts
               if f.key == "pipeline_depth" or f.group.startswith("loop ") or f.group == "warp specialization"}
        stages = jit_stages(variant, overrides)
        jit = _facts(stages["ttgir"], stages["ttir"], stages["ptx"], offline.metadata.get("num_stages"))
        same_ptx = hashlib.sha256(stages["ptx"].encode()).hexdigest() == \
            hashlib.sha256(offline.artifacts.text("ptx").encode()).hexdigest()
        differ = sorted(k for k in set(off) | set(jit) if json.dumps(off.get(k), default=str) !=
                        json.dumps(jit.get(k), default=str))
        ok = same_ptx and not differ
        bad += not ok
        depths = [v for k, v in off.items() if k.endswith(".pipeline_depth")]
        roles = [v for k, v in off.items() if k.endswith(".role")]
        row = {"variant": variant, "overrides": overrides, "target": offline.target.name,
               "ptx_identical": same_ptx, "facts_compared": len(off), "facts_differ": differ,
               "pipeline_depth": off.get("pipeline_depth"), "loop_depths": depths, "loop_roles": roles,
               "facts": {k: str(v) for k, v in off.items()}}
        rows.append(row)
        loops = list(zip(roles, depths, strict=True))
        print(f"{variant:18} {json.dumps(overrides):60} ptx_identical={same_ptx} facts={len(off)} "
              f"differ={differ or 'none'} depth={off.get('pipeline_depth')} loops={loops}", flush=True)
    (out / "loop_facts.json").write_text(json.dumps(rows, indent=1, default=str))
    print(f"{len(rows) - bad}/{len(rows)} cases: PTX identical and every fact equal")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "out")))

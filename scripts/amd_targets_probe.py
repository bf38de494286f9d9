"""Which AMD targets a Triton release compiles for, measured: a vector add and a 32x32 fp16 tl.dot
compiled with GPUTarget("hip", ARCH, WARP) on this CPU-only machine, in a fresh process per target
(an unknown processor can abort LLVM). Run it with each release's Python:

    python scripts/amd_targets_probe.py > docs/data/amd/probe-3.9.0.json
    python scripts/amd_targets_probe.py --markdown docs/data/amd/probe-*.json   # the table in docs/amd.md

Each cell: "yes (mfma)" / "yes (wmma)" / "yes (no matrix op)" when both kernels compile (what the dot
lowered to), "add only" when the dot fails, "no" when nothing compiles.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

# (arch, warp size as Triton uses it: 64 on CDNA, 32 on RDNA)
PROBED = (("gfx908", 64), ("gfx90a", 64), ("gfx942", 64), ("gfx950", 64), ("gfx1100", 32), ("gfx1101", 32),
          ("gfx1150", 32), ("gfx1200", 32), ("gfx1201", 32), ("gfx1250", 32))

_ONE = r'''
import re, sys, warnings
warnings.filterwarnings("ignore")
import triton, triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

@triton.jit
def add(x, y, o, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(o + offs, tl.load(x + offs, mask=offs < n) + tl.load(y + offs, mask=offs < n), mask=offs < n)

@triton.jit
def dot(a, b, c):
    r = tl.arange(0, 32)
    x = tl.load(a + r[:, None] * 32 + r[None, :])
    y = tl.load(b + r[:, None] * 32 + r[None, :])
    tl.store(c + r[:, None] * 32 + r[None, :], tl.dot(x, y))

arch, warp, which = sys.argv[1], int(sys.argv[2]), sys.argv[3]
target = GPUTarget("hip", arch, warp)
if which == "add":
    src = ASTSource(add, {"x": "*fp32", "y": "*fp32", "o": "*fp32", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 1024})
else:
    src = ASTSource(dot, {"a": "*fp16", "b": "*fp16", "c": "*fp32"}, {})
k = triton.compile(src, target=target)
asm = k.asm["amdgcn"]
ops = sorted(set(re.findall(r"\b(v_(?:mfma|wmma|smfmac)\w*)", asm)))
print("OK", ",".join(ops) or "-", "hsaco" in k.asm)
'''


def _run(arch: str, warp: int, which: str) -> str | None:
    with tempfile.TemporaryDirectory() as tmp:  # @triton.jit reads the kernel's source from its file
        script = os.path.join(tmp, "one.py")
        with open(script, "w") as f:
            f.write(_ONE)
        env = {**os.environ, "TRITON_CACHE_DIR": os.path.join(tmp, "cache")}
        proc = subprocess.run([sys.executable, script, arch, str(warp), which], capture_output=True, text=True,
                              timeout=300, env=env)
    out = [line for line in proc.stdout.splitlines() if line.startswith("OK ")]
    return out[-1][3:] if proc.returncode == 0 and out else None


def probe() -> dict:
    import triton

    cells = {}
    for arch, warp in PROBED:
        add = _run(arch, warp, "add")
        dot = _run(arch, warp, "dot") if add else None
        if add is None:
            cells[arch] = "no"
        elif dot is None:
            cells[arch] = "add only"
        else:
            ops = dot.split()[0]
            kind = "mfma" if "mfma" in ops else "wmma" if "wmma" in ops else "no matrix op"
            cells[arch] = f"yes ({kind})"
    return {"triton": triton.__version__, "targets": cells}


def markdown(paths: list[str]) -> str:
    probes = sorted((json.load(open(p)) for p in paths), key=lambda d: [int(x) for x in d["triton"].split(".")[:2]])
    head = "| | " + " | ".join(p["triton"] for p in probes) + " |"
    rows = [head, "|---" * (len(probes) + 1) + "|"]
    for arch, _ in PROBED:
        rows.append(f"| {arch} | " + " | ".join(p["targets"].get(arch, "not probed") for p in probes) + " |")
    return "\n".join(rows)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--markdown"]:
        print(markdown(sys.argv[2:]))
    else:
        print(json.dumps(probe(), indent=1))

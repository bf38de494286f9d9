"""Run on a GPU machine: fill a fresh Triton cache the way real programs do, for the cache fixture and
for the JIT-equivalence of user-file references.

    TRITON_CACHE_DIR=$OUT/triton_cache python scripts/triton_cache_fixture.py $OUT

1. torch.compile of a small transformer block (LayerNorm, attention, MLP; fp16): Inductor's kernels.
2. tests/data/user_kernels/my_mm.py launched for real: the autotuned matmul (every config compiles) and
   add_kernel. Then, for each, the PTX ttinspect compiles offline from the file reference is compared
   with the PTX of the launch in the cache (written to $OUT/user_file_equivalence.txt).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import torch

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "out")
ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ["TRITON_CACHE_DIR"])


class Block(torch.nn.Module):
    def __init__(self, dim=256, heads=4):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = torch.nn.LayerNorm(dim), torch.nn.LayerNorm(dim)
        self.qkv, self.proj = torch.nn.Linear(dim, 3 * dim), torch.nn.Linear(dim, dim)
        self.fc1, self.fc2 = torch.nn.Linear(dim, 4 * dim), torch.nn.Linear(4 * dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).unbind(2)
        att = torch.softmax(torch.einsum("bthd,bshd->bhts", q, k) / (d // self.heads) ** 0.5, dim=-1)
        y = torch.einsum("bhts,bshd->bthd", att, v).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm2(x))))


def transformer_block() -> None:
    torch.manual_seed(0)
    model = Block().cuda().half()
    x = torch.randn(2, 128, 256, device="cuda", dtype=torch.float16)
    compiled = torch.compile(model)
    torch.testing.assert_close(compiled(x), model(x), atol=3e-2, rtol=3e-2)


def user_file_kernels() -> list[str]:
    sys.path.insert(0, str(ROOT / "tests" / "data" / "user_kernels"))
    import my_mm  # noqa: E402

    lines = []
    size = 1024
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    c = torch.empty(size, size, device="cuda", dtype=torch.float16)
    my_mm.matmul[lambda m: (triton_cdiv(size, m["BLOCK_M"]), triton_cdiv(size, m["BLOCK_N"]))](
        a, b, c, size, size, size, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    torch.testing.assert_close(c, (a @ b), atol=0.5, rtol=2e-2)
    x = torch.randn(10000, device="cuda")
    out = torch.empty_like(x)
    my_mm.add_kernel[(triton_cdiv(10000, 1024),)](x, x, out, 10000)
    torch.cuda.synchronize()
    launched = _cache_ptx()
    from ttinspect.refs.resolver import RefOptions, resolve
    from ttinspect.kernel.arguments import parse_arg_mapping

    arch = f"sm_{torch.cuda.get_device_capability()[0]}{torch.cuda.get_device_capability()[1]}"
    path = ROOT / "tests" / "data" / "user_kernels" / "my_mm.py"
    square = parse_arg_mapping(my_mm.square_args(size), "arg")
    refs = [(f"{path}:matmul", RefOptions(args=square, config="all", arch=arch)),
            (f"{path}:add_kernel", RefOptions(args=parse_arg_mapping(
                {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": 10000}, "arg"), arch=arch))]
    for ref, options in refs:
        for built in resolve(ref, options):
            digest = hashlib.sha256(built.artifacts.data("ptx")).hexdigest()
            match = launched.get(digest)
            lines.append(f"{built.label} {arch} offline={digest[:16]} in_launch_cache={match or 'NO'}")
    return lines


def triton_cdiv(a, b):
    return (a + b - 1) // b


def _cache_ptx() -> dict[str, str]:
    return {hashlib.sha256(p.read_bytes()).hexdigest(): p.parent.name for p in CACHE.glob("*/*.ptx")}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    transformer_block()
    lines = user_file_kernels()
    (OUT / "user_file_equivalence.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    entries = sorted(p.name for p in CACHE.iterdir())
    (OUT / "cache_listing.json").write_text(json.dumps(entries, indent=1))
    print(len(entries), "cache entries")


if __name__ == "__main__":
    main()

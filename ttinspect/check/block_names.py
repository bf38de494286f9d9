"""The kernel's own block constexprs, so advice names what the user can change: the constexprs of the
build's config whose value is a dimension of the kernel's largest tile (`ROWS`, `COLS` of a softmax over a
256×1024 tile), rather than a GEMM's BLOCK_M/BLOCK_N on a kernel that has none."""

from __future__ import annotations

from dataclasses import dataclass

from ttinspect.check.context import tensor_types

# compile options a config holds beside the constexprs: never a block size
_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "waves_per_eu", "matrix_instr_nonkdim", "kpack")


@dataclass(frozen=True)
class Blocks:
    shape: tuple[int, ...]  # the largest tile's dimensions
    found: tuple[str, ...]  # the constexprs whose value is one of them, in the tile's dimension order

    def names(self, fallback: str) -> str:
        """`ROWS/COLS`, or the fallback words when the config names none (a Triton cache entry)."""
        return "/".join(self.found) if self.found else fallback

    @property
    def tile(self) -> str:
        """`ROWS × COLS = 256 × 1024`, or `the tile` when the dimensions are unknown."""
        dims = " × ".join(map(str, self.shape))
        if not self.shape:
            return "the tile"
        return f"{' × '.join(self.found)} = {dims}" if len(self.found) == len(self.shape) else f"the {dims} tile"


def block_constexprs(stages) -> Blocks:
    module = stages.ttgir
    if module is None:
        return Blocks((), ())
    shapes = [t.shape for op in module.ops for t in tensor_types(module.text(op)) if len(t.shape) >= 1]
    if not shapes:
        return Blocks((), ())
    shape = max(shapes, key=lambda s: (_product(s), len(s)))
    config = {k: v for k, v in (stages.config or {}).items()
              if k not in _OPTIONS and isinstance(v, int) and not isinstance(v, bool)}
    found: list[str] = []
    for n in shape:
        names = [k for k, v in config.items() if v == n and k not in found]
        if len(names) == 1:  # two constexprs with the dimension's value: which one sizes it is unknown
            found.append(names[0])
    return Blocks(shape, tuple(found))


def has_dot(stages) -> bool:
    """Whether the kernel has a dot; True where the TTGIR is not there to say (the advice stays a GEMM's, as
    most kernels big enough to meet the limit without a pipeline are)."""
    module = stages.ttgir
    return module is None or any(op.name in ("tt.dot", "tt.dot_scaled") or "warp_group_dot" in op.name
                                      or "tc_gen5_mma" in op.name for op in module.ops)


def _product(shape: tuple[int, ...]) -> int:
    total = 1
    for n in shape:
        total *= n
    return total

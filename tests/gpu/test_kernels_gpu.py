"""Every registered kernel, compiled by Triton's JIT and run on a CUDA GPU, against torch.

The matmuls run at the registry's default problem (4096^3 fp16) and, where the kernel has masks, at a
shape that is a multiple of no block. Each output is NaN-poisoned first, so an element the kernel
never writes fails the test rather than passing on leftover memory.
"""

from __future__ import annotations

import pytest
from ttinspect_kernels.registry import VARIANTS

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.gpu

VARIANTS_BY_NAME = {v.name: v for v in VARIANTS}
MATMULS = ("naive", "opt", "square", "tutorial", "tileon", "l2_g0", "l2_g8", "ladder_g8", "ladder_g8_s4",
           "ladder_g8_s4_mod", "opt_tma")
UNMASKED = ("l2_g0", "l2_g8", "opt_tma")  # seed 004: multiples of the blocks only; TMA: 16-byte rows
TORCH_DTYPES = {"fp16": torch.float16, "fp32": torch.float32}


def _poisoned(shape, dtype):
    return torch.full(shape, float("nan"), dtype=dtype, device="cuda")


def _assert_all_written(result, out):
    torch.cuda.synchronize()
    assert result.data_ptr() == out.data_ptr()
    unwritten = int(torch.isnan(result).sum())
    assert unwritten == 0, f"{unwritten} of {result.numel()} output elements were never written"


@pytest.fixture(autouse=True)
def _exact_fp32_reference():
    """The fp32 reference must not silently use TF32."""
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32 = saved


def _check_matmul(name: str, M: int, N: int, K: int) -> None:
    variant = VARIANTS_BY_NAME[name]
    problem = {**variant.problem, "M": M, "N": N, "K": K}
    args = variant.make_args(problem, variant.config)
    out_dtype = TORCH_DTYPES[args["c_ptr" if "c_ptr" in args else "c_desc"].dtype]
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16, generator=gen)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16, generator=gen)
    out = _poisoned((M, N), out_dtype)
    result = variant.load_launcher()(a, b, out=out, **variant.config)
    _assert_all_written(result, out)
    reference = torch.matmul(a.float(), b.float())
    # fp16 inputs are exact in fp32; the error is fp32 summation order plus C's own rounding.
    torch.testing.assert_close(result.float(), reference, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("name", MATMULS)
def test_matmul_4096(name):
    _check_matmul(name, 4096, 4096, 4096)


@pytest.mark.parametrize("name", [n for n in MATMULS if n not in UNMASKED])
def test_matmul_odd_shape(name):
    _check_matmul(name, 1000, 900, 700)


def test_tma_odd_shape():
    """TMA zero-fills past the edges: any shape whose rows are 16-byte multiples."""
    _check_matmul("opt_tma", 1000, 904, 712)


@pytest.mark.parametrize("n_elems", [1 << 24, (1 << 24) + 3])
def test_add(n_elems):
    variant = VARIANTS_BY_NAME["add"]
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(n_elems, device="cuda", generator=gen)
    y = torch.randn(n_elems, device="cuda", generator=gen)
    out = _poisoned((n_elems,), x.dtype)
    result = variant.load_launcher()(x, y, out=out, **variant.config)
    _assert_all_written(result, out)
    torch.testing.assert_close(result, x + y)


@pytest.mark.parametrize("n_rows, n_cols", [(4096, 1024), (4096, 3000)])
def test_softmax(n_rows, n_cols):
    variant = VARIANTS_BY_NAME["softmax"]
    config = {**variant.config, "BLOCK_SIZE": 1 << (n_cols - 1).bit_length()}
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = 3 * torch.randn(n_rows, n_cols, device="cuda", generator=gen)
    out = _poisoned((n_rows, n_cols), x.dtype)
    result = variant.load_launcher()(x, out=out, **config)
    _assert_all_written(result, out)
    torch.testing.assert_close(result, torch.softmax(x, dim=1))

"""The offline specialization must be the JIT's: checked against Triton's own native_specialize_impl."""

from __future__ import annotations

import pytest

from ttinspect.errors import UsageError
from ttinspect.kernel.specialize import DIVISIBILITY, specialize
from ttinspect.kernel.argument_types import Pointer


class FakeTensor:
    """What the JIT looks at in a tensor: its data pointer and dtype."""

    def __init__(self, ptr: int, dtype: str = "torch.float16"):
        self.ptr, self.dtype = ptr, dtype

    def data_ptr(self) -> int:
        return self.ptr


VALUES = [1, 0, 2, 15, 16, 17, 48, 4096, 4097, 2**31 - 16, 2**31, 2**31 + 1, 2**40, 2**63, -16, -1,
          1.0, 0.5, True, False, None, FakeTensor(4096), FakeTensor(4104), FakeTensor(4112, "torch.float32"),
          FakeTensor(0, "torch.bfloat16"), FakeTensor(4096, "torch.bool"), FakeTensor(4097, "torch.bool")]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_matches_triton_native_specialization(value):
    triton_compiler = pytest.importorskip("triton.backends.compiler")
    libtriton = pytest.importorskip("triton._C.libtriton")
    if not hasattr(libtriton, "native_specialize_impl"):
        pytest.skip("this Triton has no native_specialize_impl")
    from ttinspect.compile.jit import BOOL_TYPE

    expected_type, expected_attr = libtriton.native_specialize_impl(
        triton_compiler.BaseBackend, value, False, True, True)[:2]
    spec = specialize(["x"], {"x": value}, {}, bool_type=BOOL_TYPE)
    assert spec.signature["x"] == expected_type
    if expected_type == "constexpr":
        assert spec.constexprs["x"] == expected_attr
    elif expected_attr is None:  # floats, bools: never specialized
        assert (0,) not in spec.attrs
    else:
        assert spec.attrs[(0,)] == (DIVISIBILITY if expected_attr == "D" else [])


def test_matmul_arguments():
    params = ["a_ptr", "M", "stride_am", "stride_ak", "BLOCK"]
    spec = specialize(params, {"a_ptr": Pointer("fp16"), "M": 4096, "stride_am": 4096, "stride_ak": 1},
                      {"BLOCK": 64})
    assert spec.signature == {"a_ptr": "*fp16", "M": "i32", "stride_am": "i32", "stride_ak": "constexpr",
                              "BLOCK": "constexpr"}
    assert spec.constexprs == {"stride_ak": 1, "BLOCK": 64}
    assert spec.attrs == {(0,): DIVISIBILITY, (1,): DIVISIBILITY, (2,): DIVISIBILITY}
    assert spec.describe()["a_ptr"] == "*fp16 D" and spec.describe()["stride_ak"] == "=1"


def test_unaligned_pointer_and_odd_size_get_no_divisibility():
    spec = specialize(["p", "n"], {"p": Pointer("fp32", aligned=False), "n": 100}, {})
    assert spec.attrs == {(0,): [], (1,): []}


def test_do_not_specialize():
    spec = specialize(["n", "m"], {"n": 1, "m": 32}, {}, do_not_specialize=frozenset({"n", "m"}))
    assert spec.signature == {"n": "i32", "m": "i32"} and spec.attrs == {}
    spec = specialize(["m"], {"m": 32}, {}, do_not_specialize_on_alignment=frozenset({"m"}))
    assert spec.attrs == {(0,): []}


def test_missing_and_unsupported_arguments():
    with pytest.raises(UsageError, match="no value for kernel parameter"):
        specialize(["a", "b"], {"a": 1}, {})
    with pytest.raises(UsageError, match="cannot pass"):
        specialize(["a"], {"a": object()}, {})


@pytest.mark.parametrize("value", [FakeTensor(4096), FakeTensor(4104, "torch.bfloat16")], ids=repr)
def test_a_const_pointer_is_typed_as_the_jit_types_it(value):
    """`x: tl.const`: the JIT types the pointer *k<dtype> (a const pointer: !tt.ptr<..., "constant">)."""
    triton_compiler = pytest.importorskip("triton.backends.compiler")
    libtriton = pytest.importorskip("triton._C.libtriton")
    if not hasattr(libtriton, "native_specialize_impl"):
        pytest.skip("this Triton has no native_specialize_impl")
    from ttinspect.compile.jit import BOOL_TYPE

    expected = libtriton.native_specialize_impl(triton_compiler.BaseBackend, value, True, True, True)[0]
    spec = specialize(["x"], {"x": value}, {}, bool_type=BOOL_TYPE, const_pointers=frozenset({"x"}))
    assert spec.signature["x"] == expected and expected.startswith("*k")

"""On a GPU: ttinspect's offline PTX is byte-identical to what the JIT compiles for a real launch."""

from __future__ import annotations

import pytest

from ttinspect.gpu.jit_check import compare_with_jit

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("variant", ["naive", "opt"])
def test_offline_ptx_is_the_jits(variant):
    comparison = compare_with_jit(variant, size=1024)
    assert comparison.identical, comparison

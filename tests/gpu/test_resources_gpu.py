"""On a GPU: registers and spills read offline from the cubin equal what the GPU reports at launch."""

from __future__ import annotations

import pytest

from ttinspect.gpu.resources_check import compare_in_fresh_process
from ttinspect.kernel.catalog import all_variants

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("variant", [v.name for v in all_variants()])
def test_offline_registers_and_spills_equal_the_gpus(variant):
    comparison = compare_in_fresh_process(variant)
    assert comparison.agrees, comparison

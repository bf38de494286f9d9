"""The shared-memory operand term (perf/mma_operands.py, terms.py): how often a dot's MMA layout re-reads its
operand tiles, on hand-checked numbers, and the combination with the tensor cores; and the autotune check's
figures (scripts/perf_autotune_check.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ttinspect.perf.mma_operands import dot_operand_factors, factor_by_shape, operand_factor
from ttinspect.perf.terms import SMEM_TENSOR_POWER, shared_operand_bytes, soft_max
from ttinspect.perf.work import Work

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

WGMMA = ("#mma = #ttg.nvidia_mma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], "
         "instrShape = [16, {n}, 16]}}>")
DOT = ("%acc = ttng.warp_group_dot %a, %b, %c {{isAsync = true}} : {a} * !ttg.memdesc<64x{n}xf16, #shared, #smem> "
       "-> tensor<{m}x{n}xf32, #mma>")


def _wgmma_ttgir(m: int, n: int, a_in_smem: bool = True) -> str:
    a = f"!ttg.memdesc<{m}x64xf16, #shared, #smem>" if a_in_smem else f"tensor<{m}x64xf16, #ttg.dot_op<{{opIdx = 0}}>>"
    return "\n".join([WGMMA.format(n=n), "module {", "  tt.func public @k() {",
                      "    " + DOT.format(a=a, m=m, n=n), "    tt.return", "  }", "}"])


@pytest.mark.parametrize("m, n, a_in_smem, factor", [
    # B once per 64-row slice, A once per n-wide column slice: M·N·K·(1/64 + 1/n) ÷ (M·K + K·N)
    (128, 256, True, (1 / 64 + 1 / 256) / (1 / 256 + 1 / 128)),  # 5/256 ÷ 3/256 = 5/3
    (256, 128, True, (1 / 64 + 1 / 128) / (1 / 128 + 1 / 256)),  # 6/256 ÷ 3/256 = 2: 20 % more than 128x256
    (128, 128, False, (1 / 64) / (1 / 128 + 1 / 128)),  # A in registers (attention's P): B's re-reads only
])
def test_wgmma_rereads_b_per_64_rows_and_a_per_instruction_column(m, n, a_in_smem, factor):
    (found,) = dot_operand_factors(_wgmma_ttgir(m, n, a_in_smem))
    assert found[:3] == (m, n, 64)
    assert found[3] == pytest.approx(factor)


def test_the_two_tiles_of_the_persistent_matmul_differ_by_a_fifth():
    (wide,) = dot_operand_factors(_wgmma_ttgir(128, 256))
    (tall,) = dot_operand_factors(_wgmma_ttgir(256, 128))
    assert tall[3] / wide[3] == pytest.approx(1.2)


@pytest.mark.parametrize("warps, factor", [((4, 1), (128 * 1 + 32 * 4) / 160), ((2, 2), (128 * 2 + 32 * 2) / 160)])
def test_mma_sync_reads_each_operand_once_per_warp_across_the_split(warps, factor):
    """mma.sync: A is read by the wn warps of a row, B by the wm warps of a column: K·(M·wn + N·wm)."""
    layouts = {"mma": {"versionMajor": "2", "warpsPerCTA": f"[{warps[0]}, {warps[1]}]"}}
    text = ("%d = tt.dot %a, %b, %c : tensor<128x16xf16, #ttg.dot_op<{opIdx = 0}>> * "
            "tensor<16x32xf16, #ttg.dot_op<{opIdx = 1}>> -> tensor<128x32xf32, #mma>")
    assert operand_factor(text, layouts, set()) == (128, 32, 16, pytest.approx(factor))
    only_b = 16 * 32 * warps[0] / (128 * 16 + 16 * 32)  # A computed in registers: only B's reads count
    assert operand_factor(text, layouts, {"%a"})[3] == pytest.approx(only_b)


def test_operand_bytes_take_each_dots_factor_by_its_m_and_n():
    work = Work(1, operand_bytes_by_dot={(128, 256, 64): 3000.0, (64, 64, 64): 100.0})
    facts = {"dot_operand_factors": [[128, 256, 32, 5 / 3], [128, 256, 32, 5 / 3]]}  # split along K: same M, N
    assert factor_by_shape(facts) == {(128, 256): [5 / 3, 5 / 3]}
    assert shared_operand_bytes(facts, work) == pytest.approx(3000 * 5 / 3 + 100)  # unread layout: once


def test_tensor_cores_and_their_shared_memory_combine_softly():
    """(tᵖ + sᵖ)^(1/p): equal terms cost 2^(1/4) ≈ 1.19× either; shared memory at half the dots' time 0.4 %."""
    assert SMEM_TENSOR_POWER == 4.0
    assert soft_max((1.0, 1.0), SMEM_TENSOR_POWER) == pytest.approx(2 ** 0.25)
    assert soft_max((1.0, 0.5), SMEM_TENSOR_POWER) == pytest.approx((1 + 0.5 ** 4) ** 0.25)


def test_the_autotune_check_figures_one_key():
    from perf_autotune_check import Group, Timed, figures

    timed = [Timed({}, ms, "f.py:k", "sm_90", {}, (1,), predicted_ms=p) for ms, p in
             ((1.0, 1.1), (2.0, 1.9), (4.0, 4.4), (3.0, None))]
    row = figures(Group("k", {"M": 512}, timed))
    assert row is not None
    assert (row["points"], row["spearman"], row["best_ratio"], row["top5_within_1.05"]) == (3, pytest.approx(1.0),
                                                                                         1.0, True)
    assert row["median_error"] == pytest.approx(0.1)


def test_the_autotune_check_reads_a_listings_timed_configs_with_the_keys_arguments():
    from perf_autotune_check import groups_of_listing

    def compile_(n, ms, launched):
        return {"kernel": "k", "ref": "x.ttcap:k", "number": n, "file": "/nonexistent/k.py", "target": "sm_90",
                "config": {"BLOCK": 32 * n, "num_warps": 4, "ptx_version": 87},
                "grids": [[8, 1, 1]] if launched else [], "args": [{"M": 256, "x": {"dtype": "float16"}}] if launched
                else [], "autotune": [{"key": {"M": 256}, "config": n, "configs": 3, "ms": ms, "best_ms": 1.0}]}

    (group,) = groups_of_listing({"compiles": [compile_(1, 1.0, True), compile_(2, 2.0, False),
                                               compile_(3, 3.0, False)]})
    assert [t.measured_ms for t in group.timed] == [1.0, 2.0, 3.0]
    assert [t.grid for t in group.timed] == [(8, 1, 1), None, None]  # only the launched config's grid is known
    assert all(t.args is not None and t.args["M"] == 256 for t in group.timed)
    assert group.timed[0].config == {"BLOCK": 32, "num_warps": 4}
    assert group.timed[1].source == "x.ttcap:k#2"

"""The performance model's terms on hand-checked numbers (ttinspect/perf/: masks.py, work.py, ir_program.py,
unroll.py, terms.py, model.py; docs/predict.md "The model"): each term alone, on TTIR written here and
facts given by hand, so a changed equation shows which term moved."""

from __future__ import annotations

import pytest

from ttinspect.perf.devices import find_device
from ttinspect.perf.ir_program import parse_ir_program
from ttinspect.perf.masks import active_fraction
from ttinspect.perf.terms import (TC_ACHIEVABLE, WARP_CPI, chain_limiter, chain_seconds, launch_shape,
                                  loop_instructions_per_trip, resource_terms, soft_max, spill_bytes,
                                  tensor_core_seconds)
from ttinspect.perf.unroll import unroll_factor
from ttinspect.perf.work import Work, count_work, dot_feeds_elementwise, placing_scalars

H100 = find_device("H100 SXM")


def _func(name: str, args: str) -> str:
    return f"module {{\n  tt.func public @{name}({args}) attributes {{noinline = false}} {{\n"


def _arg(name: str, kind: str) -> str:
    return f'%{name}: {kind} loc("{name}"(#loc))'


# One program per 1024 elements of x, masked by `offs < n` (Triton's vector add with its bound check).
MASKED_ADD = _func("add", ", ".join([_arg("x_ptr", "!tt.ptr<f32>"), _arg("out_ptr", "!tt.ptr<f32>"),
                                     _arg("n", "i32")])) + """\
    %c1024_i32 = arith.constant 1024 : i32 loc(#loc1)
    %pid = tt.get_program_id x : i32 loc(#loc2)
    %start = arith.muli %pid, %c1024_i32 : i32 loc(#loc3)
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32> loc(#loc4)
    %s = tt.splat %start : i32 -> tensor<1024xi32> loc(#loc5)
    %offs = arith.addi %s, %r : tensor<1024xi32> loc(#loc5)
    %nn = tt.splat %n : i32 -> tensor<1024xi32> loc(#loc6)
    %mask = arith.cmpi slt, %offs, %nn : tensor<1024xi32> loc(#loc6)
    %xp = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>> loc(#loc7)
    %xa = tt.addptr %xp, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32> loc(#loc7)
    %x = tt.load %xa, %mask : tensor<1024x!tt.ptr<f32>> loc(#loc8)
    %op = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>> loc(#loc9)
    %oa = tt.addptr %op, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32> loc(#loc9)
    tt.store %oa, %x, %mask : tensor<1024x!tt.ptr<f32>> loc(#loc10)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
"""


def test_a_mask_counts_only_the_elements_it_lets_through():
    # n = 1500 over two programs of 1024: the first whole, the last 476 of 1024
    work = count_work(parse_ir_program(MASKED_ADD), {"n": 1500}, (2, 1, 1), wave=132 * 8, l2_bytes=50 << 20)
    assert work.load_bytes == pytest.approx(1500 * 4)
    assert work.store_bytes == pytest.approx(1500 * 4)


# A 16 x 64 tile masked by rows < M (along dim 0) and cols < K (along dim 1): `rows[:, None] & cols[None, :]`.
TILE_MASK = _func("tile", ", ".join([_arg("a_ptr", "!tt.ptr<f16>"), _arg("M", "i32"), _arg("K", "i32")])) + """\
    %rows = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32> loc(#loc1)
    %mm = tt.splat %M : i32 -> tensor<16xi32> loc(#loc2)
    %rm = arith.cmpi slt, %rows, %mm : tensor<16xi32> loc(#loc2)
    %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32> loc(#loc3)
    %kk = tt.splat %K : i32 -> tensor<64xi32> loc(#loc4)
    %cm = arith.cmpi slt, %cols, %kk : tensor<64xi32> loc(#loc4)
    %r2 = tt.expand_dims %rm {axis = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1> loc(#loc5)
    %c2 = tt.expand_dims %cm {axis = 0 : i32} : tensor<64xi1> -> tensor<1x64xi1> loc(#loc6)
    %rb = tt.broadcast %r2 : tensor<16x1xi1> -> tensor<16x64xi1> loc(#loc5)
    %cb = tt.broadcast %c2 : tensor<1x64xi1> -> tensor<16x64xi1> loc(#loc6)
    %m = arith.andi %rb, %cb : tensor<16x64xi1> loc(#loc7)
    %p = tt.splat %a_ptr : !tt.ptr<f16> -> tensor<16x64x!tt.ptr<f16>> loc(#loc8)
    %a = tt.load %p, %m : tensor<16x64x!tt.ptr<f16>> loc(#loc9)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
"""


@pytest.mark.parametrize("m, k, share", [(16, 64, 1.0), (12, 64, 12 / 16), (16, 16, 16 / 64), (4, 48, 4 / 16 * 48 / 64),
                                         (0, 64, 0.0)])
def test_a_two_dimensional_mask_is_the_product_of_its_rows_and_columns(m, k, share):
    program = parse_ir_program(TILE_MASK)
    load = next(op for op in program.ops if op.name == "tt.load")
    env = program.evaluate({"M": m, "K": k}, (0, 0, 0), (1, 1, 1))
    defs = {op.result: op for op in program.ops if op.result}
    assert active_fraction(load, env, defs, {}) == pytest.approx(share)


# Two sibling loops that reuse one SSA name for different values (%x_14: a pointer tensor in the first, the
# loaded value in the second), as MLIR prints a two-pass RMS norm; both loads read the same row.
TWO_PASS = _func("norm", ", ".join([_arg("x_ptr", "!tt.ptr<f32>"), _arg("N", "i32")])) + """\
    %c0_i32 = arith.constant 0 : i32 loc(#loc1)
    %c256_i32 = arith.constant 256 : i32 loc(#loc1)
    %row = tt.get_program_id x : i32 loc(#loc2)
    %off = arith.muli %row, %N : i32 loc(#loc3)
    %x_row = tt.addptr %x_ptr, %off : !tt.ptr<f32>, i32 loc(#loc4)
    scf.for %start = %c0_i32 to %N step %c256_i32  : i32 {
      %cols = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32> loc(#loc5)
      %x_14 = tt.splat %x_row : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>> loc(#loc6)
      %x_15 = tt.addptr %x_14, %cols : tensor<256x!tt.ptr<f32>>, tensor<256xi32> loc(#loc6)
      %x_16 = tt.load %x_15 : tensor<256x!tt.ptr<f32>> loc(#loc7)
    } loc(#loc8)
    scf.for %start = %c0_i32 to %N step %c256_i32  : i32 {
      %cols = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32> loc(#loc9)
      %x = tt.splat %x_row : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>> loc(#loc10)
      %x_13 = tt.addptr %x, %cols : tensor<256x!tt.ptr<f32>>, tensor<256xi32> loc(#loc10)
      %x_14 = tt.load %x_13 : tensor<256x!tt.ptr<f32>> loc(#loc11)
    } loc(#loc12)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
"""


def test_names_reused_in_sibling_loops_mean_their_own_values():
    program = parse_ir_program(TWO_PASS)
    loads = [op for op in program.ops if op.name == "tt.load"]
    assert loads[0].operands != loads[1].operands  # %x_15 and %x_13, each resolved in its own loop
    assert placing_scalars(program, loads[0], set()) == placing_scalars(program, loads[1], set()) == ("%off", "%x_ptr")
    assert {loop.iv for loop in program.loops.values()} == {"%start", "%start$2"}


def test_a_second_pass_over_a_row_the_l2_still_holds_is_not_read_from_dram_again():
    program = parse_ir_program(TWO_PASS)
    # 1000 rows of 1024 fp32: 4 KB per row per pass; a wave of 1056 programs holds 4 MB, well under half the L2
    work = count_work(program, {"N": 1024}, (1000, 1, 1), wave=1056, l2_bytes=50 << 20)
    assert work.load_bytes == pytest.approx(2 * 1000 * 4096)
    assert work.dram_bytes == pytest.approx(1000 * 4096)
    # the same rows with an L2 too small to hold a wave's: both passes come from DRAM
    assert count_work(program, {"N": 1024}, (1000, 1, 1), wave=1056, l2_bytes=1 << 20).dram_bytes == \
        pytest.approx(2 * 1000 * 4096)


def _dot_loop(body: str) -> str:
    args = ", ".join([_arg("a_ptr", "!tt.ptr<f16>"), _arg("K", "i32")])
    return _func("dots", args) + """\
    %c0_i32 = arith.constant 0 : i32 loc(#loc1)
    %c64_i32 = arith.constant 64 : i32 loc(#loc1)
    %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32> loc(#loc2)
    %p = tt.splat %a_ptr : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>> loc(#loc3)
    %acc_out = scf.for %k = %c0_i32 to %K step %c64_i32 iter_args(%acc = %z) -> (tensor<64x64xf32>)  : i32 {
      %a = tt.load %p : tensor<64x64x!tt.ptr<f16>> loc(#loc4)
""" + body + """\
    } loc(#loc9)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
"""


MATMUL_LOOP = _dot_loop("""\
      %c = tt.dot %a, %a, %acc : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32> loc(#loc5)
      scf.yield %c : tensor<64x64xf32> loc(#loc6)
""")
ATTENTION_LOOP = _dot_loop("""\
      %qk = tt.dot %a, %a, %z : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32> loc(#loc5)
      %e = math.exp2 %qk : tensor<64x64xf32> loc(#loc6)
      %eh = arith.truncf %e : tensor<64x64xf32> to tensor<64x64xf16> loc(#loc7)
      %c = tt.dot %eh, %a, %acc : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32> loc(#loc8)
      scf.yield %c : tensor<64x64xf32> loc(#loc6)
""")


@pytest.mark.parametrize("ttir, feeds", [(MATMUL_LOOP, False), (ATTENTION_LOOP, True)])
def test_a_dot_whose_result_feeds_element_wise_work_is_told_from_one_that_only_accumulates(ttir, feeds):
    assert dot_feeds_elementwise(parse_ir_program(ttir)) is feeds


# `if label == -100: <zero the row>; return`, then the row doubled: Triton lowers the early return to blocks.
EARLY_RETURN = _func("k", ", ".join([_arg("x_ptr", "!tt.ptr<f32>"), _arg("lab_ptr", "!tt.ptr<i64>")])) + """\
    %c-100_i64 = arith.constant -100 : i64 loc(#loc1)
    %cst = arith.constant dense<0.000000e+00> : tensor<1024xf32> loc(#loc1)
    %pid = tt.get_program_id x : i32 loc(#loc2)
    %lp = tt.addptr %lab_ptr, %pid : !tt.ptr<i64>, i32 loc(#loc3)
    %label = tt.load %lp : !tt.ptr<i64> loc(#loc3)
    %0 = arith.cmpi eq, %label, %c-100_i64 : i64 loc(#loc4)
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32> loc(#loc5)
    %p = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>> loc(#loc6)
    %q = tt.addptr %p, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32> loc(#loc6)
    cf.cond_br %0, ^bb1, ^bb2 loc(#loc4)
  ^bb1:  // pred: ^bb0
    tt.store %q, %cst : tensor<1024x!tt.ptr<f32>> loc(#loc7)
    tt.return loc(#loc8)
  ^bb2:  // pred: ^bb0
    %v = tt.load %q : tensor<1024x!tt.ptr<f32>> loc(#loc9)
    %w = arith.addf %v, %v : tensor<1024xf32> loc(#loc10)
    tt.store %q, %w : tensor<1024x!tt.ptr<f32>> loc(#loc11)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
"""


# a helper function after the kernel (a noinline @jit function), with blocks of its own
HELPER_WITH_BLOCKS = """  tt.func private @helper(%x: i32) -> i32 {
    cf.br ^bb1 loc(#loc)
  ^bb1:  // pred: ^bb0
    tt.return %x : i32 loc(#loc)
  } loc(#loc)
} loc(#loc)
"""


@pytest.mark.parametrize("after", ["", HELPER_WITH_BLOCKS])
def test_an_early_return_is_left_out_and_said(after):
    ttir = EARLY_RETURN if not after else EARLY_RETURN.rsplit("} loc(#loc)", 1)[0] + after
    program = parse_ir_program(ttir)
    work = count_work(program, {}, (1, 1, 1), wave=1056, l2_bytes=50 << 20)
    # the row loaded and stored once (and the label's 8 bytes): the exit's store is not counted
    assert (work.load_bytes, work.store_bytes) == (4096 + 8, 4096)
    assert program.early_exits == ["arith.cmpi eq, %label, %c-100_i64"]


def _one_dot(a: str, acc: str) -> str:
    """One 64x64x64 dot of two `a` tiles into an `acc` accumulator, in one program."""
    return _func("dot", _arg("a_ptr", f"!tt.ptr<{a}>")) + f"""\
    %z = arith.constant dense<0> : tensor<64x64x{acc}> loc(#loc1)
    %p = tt.splat %a_ptr : !tt.ptr<{a}> -> tensor<64x64x!tt.ptr<{a}>> loc(#loc2)
    %a = tt.load %p : tensor<64x64x!tt.ptr<{a}>> loc(#loc3)
    %c = tt.dot %a, %a, %z : tensor<64x64x{a}> * tensor<64x64x{a}> -> tensor<64x64x{acc}> loc(#loc4)
    tt.return loc(#loc)
  }} loc(#loc)
}} loc(#loc)
"""


@pytest.mark.parametrize("element, acc, key, operand_bytes", [
    ("f16", "f32", "fp16", 2), ("bf16", "f32", "bf16", 2), ("f8E4M3FN", "f32", "fp8", 1),
    ("i8", "i32", "int8", 1),  # torchao's int8 matmuls: once charged at the FMA units' rate, 20x slow
])
def test_each_dot_input_type_runs_at_its_own_matrix_path_peak(element, acc, key, operand_bytes):
    work = count_work(parse_ir_program(_one_dot(element, acc)), {}, (1, 1, 1), wave=1056, l2_bytes=50 << 20)
    assert work.tc_flops == {key: 2.0 * 64 ** 3}
    assert work.smem_operand_bytes == 2 * 64 * 64 * operand_bytes
    said: list[str] = []
    seconds = tensor_core_seconds(work, H100, "wgmma", said)
    assert seconds == pytest.approx(2.0 * 64 ** 3 / (H100.tflops[key] * 1e12 * TC_ACHIEVABLE)) and not said


@pytest.mark.parametrize("ptx, sass, factor", [
    (2, (("16B", 8),), 4),  # ptxas unrolled the loop 4x: eight LDG where the PTX has two
    (1, (("16B", 4),), 4),
    (3, (("16B", 3),), 1),  # not unrolled
    (2, (("16B", 100),), 1),  # more than MAX_UNROLL: not the same loop, not trusted
    (None, (("16B", 8),), 1),  # no PTX loop
    (2, None, 1),
])
def test_the_unroll_factor_is_the_sass_loops_loads_over_the_ptx_loops(ptx, sass, factor):
    assert unroll_factor({"ptx_loop_global_loads": ptx, "sass_loop_global_loads": sass}) == factor


def _work(programs: int, trips_per_program: float, **fields) -> Work:
    work = Work(programs, loop_trips_total=programs * trips_per_program, loop_trips=trips_per_program,
                load_bytes=1.0, **fields)
    work.tiles = programs
    return work


@pytest.mark.parametrize("depth, per_trip_cycles", [
    (1, 1000 + 40 * WARP_CPI),  # unpipelined: the round trip, then the trip's 40 instructions
    (3, soft_max((1000 / 2, 40 * WARP_CPI))),  # two trips' loads in flight: half a round trip per trip
])
def test_the_dependency_chain_by_hand(depth, per_trip_cycles):
    facts = {"sass_instructions": 100, "sass_loop_instructions": 40}
    work = _work(264, 8)
    shape = launch_shape(H100, work, ctas_per_sm=2, warps=4)  # 2 CTAs per SM, both resident: one round
    clock = H100.boost_mhz * 1e6
    expected = (1000 + 60 * WARP_CPI + 8 * per_trip_cycles) / clock  # first loads, the code outside, 8 trips
    assert chain_seconds(facts, work, shape, 0.0, depth, 1000) == pytest.approx(expected)
    # four CTAs per SM, two at a time: two rounds
    assert chain_seconds(facts, _work(528, 8), launch_shape(H100, _work(528, 8), 2, 4), 0.0, depth, 1000) == \
        pytest.approx(2 * expected)


def test_an_unrolled_loop_waits_once_for_the_trips_it_issued_together():
    facts = {"sass_instructions": 100, "sass_loop_instructions": 40, "ptx_loop_global_loads": 1,
             "sass_loop_global_loads": (("16B", 4),)}
    work = _work(132, 8)
    shape = launch_shape(H100, work, 1, 4)
    # the 40-instruction SASS body holds 4 trips: a trip waits a quarter round trip and issues 10 instructions
    expected = (1000 + 60 * WARP_CPI + 8 * (1000 / 4 + 10 * WARP_CPI)) / (H100.boost_mhz * 1e6)
    assert chain_seconds(facts, work, shape, 0.0, 1, 1000) == pytest.approx(expected)


@pytest.mark.parametrize("feeds, own_cycles", [(False, 0), (True, 40 * WARP_CPI)])
def test_a_dot_loops_trip_waits_on_its_instructions_only_when_they_consume_the_dot(feeds, own_cycles):
    facts = {"sass_instructions": 100, "sass_loop_instructions": 40}
    work = _work(132, 10, dot_feeds_elementwise=feeds)
    shape = launch_shape(H100, work, 1, 4)
    clock = H100.boost_mhz * 1e6
    tensor_s = 2000 * 1320 / clock / 132  # 1320 trips of 2000 cycles each on one SM, the launch spread on 132
    per_trip = soft_max((1000 / 2, 2000 + own_cycles))
    assert chain_seconds(facts, work, shape, tensor_s, 3, 1000) == \
        pytest.approx((1000 + 60 * WARP_CPI + 10 * per_trip) / clock)


def test_the_chain_is_named_by_what_a_cta_waits_on_most():
    facts = {"sass_instructions": 100, "sass_loop_instructions": 40}
    work = _work(132, 10)
    shape = launch_shape(H100, work, 1, 4)
    clock = H100.boost_mhz * 1e6
    # unpipelined, no dots: 1000 + 10 x 1000 cycles waiting on loads against 60 x 4 + 10 x 160 of instructions
    assert chain_limiter(facts, work, shape, 0.0, 1, 1000) == "memory latency"
    # a pipelined dot loop whose 2000-cycle trips outlast half a round trip: its dots
    dots = _work(132, 10)
    assert chain_limiter(facts, dots, launch_shape(H100, dots, 1, 4), 2000 * 1320 / clock / 132, 3, 1000) == \
        "tensor cores"


@pytest.mark.parametrize("ctas_per_sm", [1, 4, 16])
def test_the_chain_charges_a_warps_own_dependent_issue_whatever_shares_the_sm(ctas_per_sm):
    """The SM's issue rate shared by every resident warp is the instruction issue term: the chain of one CTA
    (here one trip, 40 loop + 60 other instructions, one round) is the same at 1, 4 or 16 resident CTAs."""
    facts = {"sass_instructions": 100, "sass_loop_instructions": 40}
    work = _work(132 * ctas_per_sm, 1)
    shape = launch_shape(H100, work, ctas_per_sm, 8)
    expected = (1000 + 60 * WARP_CPI + 1000 + 40 * WARP_CPI) / (H100.boost_mhz * 1e6)
    assert chain_seconds(facts, work, shape, 0.0, 1, 1000) == pytest.approx(expected)


@pytest.mark.parametrize("sass_loads, ptx_loads, per_trip", [
    ((("16B", 4),), 1, 10.0),  # ptxas unrolled 4 trips into the 40-instruction body
    ((("16B", 1),), 1, 40.0),  # not unrolled
    ((("2B", 64),), 2, 40.0),  # a ratio of 32, over MAX_UNROLL: not the same loop, the body counts as one trip
    (None, None, 40.0),  # no PTX/SASS load counts: the body is one trip
])
def test_a_trips_instructions_are_the_sass_body_over_the_trips_ptxas_unrolled_into_it(sass_loads, ptx_loads,
                                                                                      per_trip):
    facts = {"sass_loop_instructions": 40, "sass_loop_global_loads": sass_loads, "ptx_loop_global_loads": ptx_loads}
    assert loop_instructions_per_trip(facts) == pytest.approx(per_trip)


@pytest.mark.parametrize("unrolled", [1, 4])
def test_the_instruction_issue_term_counts_warp_instructions_from_the_sass(unrolled):
    facts = {"sass_instructions": 100, "sass_loop_instructions": 40, "num_warps": 4,
             "sass_loop_global_loads": (("16B", unrolled),), "ptx_loop_global_loads": 1}
    work = _work(264, 8)
    shape = launch_shape(H100, work, 2, 4)
    terms = resource_terms(facts, H100, work, shape, "none", [])
    # 60 instructions outside the loop per program; the body's 40 hold `unrolled` of the 8 trips per program
    warp_instructions = 4 * (264 * 60 + 40 / unrolled * 264 * 8)
    assert terms["instruction issue"] == pytest.approx(warp_instructions / (132 * 4 * H100.boost_mhz * 1e6))


def test_spills_are_counted_from_the_sass_and_reach_dram_when_their_frames_outgrow_the_l2():
    facts = {"threads": 64, "sass_local_memory": (("LDL.4B", 10), ("STL.8B", 5)),
             "sass_loop_local_memory": (("LDL.4B", 4),), "stack": 4000}
    work = _work(1000, 8)
    per_thread = (80 - 16) + 16 * 8  # outside the loop once, the loop's 16 B per trip
    assert spill_bytes(facts, work) == pytest.approx(per_thread * 64 * 1000)
    held = resource_terms({**facts, "stack": 16}, H100, work, launch_shape(H100, work, 4, 2), "none", [])
    spilled = resource_terms(facts, H100, work, launch_shape(H100, work, 32, 2), "none", [])
    # 4000 B x 64 threads x 32 CTAs x 132 SMs = 1.1 GB of frames: the spills go to DRAM as well as the L2
    assert held["DRAM"] == pytest.approx(0.0)
    assert spilled["DRAM"] == pytest.approx(per_thread * 64 * 1000 / (H100.hbm_gbps * 1e9 * 0.88), rel=0.01)


@pytest.mark.parametrize("values, power, expected", [((3.0, 4.0), 2, 5.0), ((10.0, 1.0), 30, 10.0), ((), 30, 0.0),
                                                     ((5.0, 5.0), 30, 5.0 * 2 ** (1 / 30))])
def test_soft_max(values, power, expected):
    assert soft_max(values, power) == pytest.approx(expected)

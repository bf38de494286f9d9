"""The SFU term's library calls and copies (ttinspect/perf/library_math.py, work.py; docs/predict.md, round 4):
a libdevice call in the TTIR (`tt.extern_elementwise`) is charged the MUFU ops it lowers to, and a tile
smaller than the CTA is computed by every thread that holds a copy. TTIR written here, facts by hand;
directions, no timings."""

from __future__ import annotations

import pytest

from ttinspect.perf.devices import find_device
from ttinspect.perf.ir_program import parse_ir_program
from ttinspect.perf.library_math import mufu_per_element
from ttinspect.perf.model import predict_from_facts
from ttinspect.perf.work import count_work

H200 = find_device("H200")


def _powf_rows(block: int, symbol: str) -> str:
    """One program per row of N floats: y = x ** 1.5 over the row in BLOCK-wide tiles (a library call)."""
    return f"""module {{
  tt.func public @rows(%X: !tt.ptr<f32> loc("X"(#loc)), %Y: !tt.ptr<f32> loc("Y"(#loc)), %N: i32 loc("N"(#loc))) {{
    %c0_i32 = arith.constant 0 : i32 loc(#loc1)
    %cb_i32 = arith.constant {block} : i32 loc(#loc1)
    %e = arith.constant dense<1.500000e+00> : tensor<{block}xf32> loc(#loc1)
    %pid = tt.get_program_id x : i32 loc(#loc2)
    %row = arith.muli %pid, %N : i32 loc(#loc3)
    %xr = tt.addptr %X, %row : !tt.ptr<f32>, i32 loc(#loc4)
    %yr = tt.addptr %Y, %row : !tt.ptr<f32>, i32 loc(#loc4)
    scf.for %n = %c0_i32 to %N step %cb_i32  : i32 {{
      %r = tt.make_range {{end = {block} : i32, start = 0 : i32}} : tensor<{block}xi32> loc(#loc5)
      %s = tt.splat %n : i32 -> tensor<{block}xi32> loc(#loc5)
      %o = arith.addi %s, %r : tensor<{block}xi32> loc(#loc5)
      %xp = tt.splat %xr : !tt.ptr<f32> -> tensor<{block}x!tt.ptr<f32>> loc(#loc6)
      %xa = tt.addptr %xp, %o : tensor<{block}x!tt.ptr<f32>>, tensor<{block}xi32> loc(#loc6)
      %x = tt.load %xa : tensor<{block}x!tt.ptr<f32>> loc(#loc7)
      %p = tt.extern_elementwise %x, %e {{libname = "", libpath = "", pure = true, symbol = "{symbol}"}} : \
(tensor<{block}xf32>, tensor<{block}xf32>) -> tensor<{block}xf32> loc(#loc8)
      %yp = tt.splat %yr : !tt.ptr<f32> -> tensor<{block}x!tt.ptr<f32>> loc(#loc9)
      %ya = tt.addptr %yp, %o : tensor<{block}x!tt.ptr<f32>>, tensor<{block}xi32> loc(#loc9)
      tt.store %ya, %p : tensor<{block}x!tt.ptr<f32>> loc(#loc10)
    }} loc(#loc11)
    tt.return loc(#loc)
  }} loc(#loc)
}} loc(#loc)
"""


@pytest.mark.parametrize("symbol, mufu", [("__nv_fast_powf", 2), ("__nv_fast_expf", 1), ("__nv_powf", 0),
                                          ("my_own_function", 0)])
def test_a_library_call_costs_the_mufu_ops_it_lowers_to(symbol, mufu):
    assert mufu_per_element(f'%x {{libname = "", libpath = "", pure = true, symbol = "{symbol}"}} : f32') == mufu


def test_a_fast_powf_puts_work_on_the_sfu_and_an_accurate_one_does_not():
    work = count_work(parse_ir_program(_powf_rows(256, "__nv_fast_powf")), {"N": 32768}, (4096, 1, 1),
                      wave=132 * 8, l2_bytes=50 << 20, threads=64)
    assert work.sfu_ops == pytest.approx(4096 * 32768 * 2)  # lg2 + ex2 per element
    accurate = count_work(parse_ir_program(_powf_rows(256, "__nv_powf")), {"N": 32768}, (4096, 1, 1),
                          wave=132 * 8, l2_bytes=50 << 20, threads=64)
    assert accurate.sfu_ops == 0


@pytest.mark.parametrize("warps", [2, 4, 8])
def test_a_tile_smaller_than_the_cta_is_computed_once_per_copy(warps):
    # 32 elements on 32 * warps threads: every element computed `warps` times
    program = parse_ir_program(_powf_rows(32, "__nv_fast_powf"))
    one = count_work(program, {"N": 32768}, (4096, 1, 1), wave=132 * 8, l2_bytes=50 << 20, threads=32)
    more = count_work(program, {"N": 32768}, (4096, 1, 1), wave=132 * 8, l2_bytes=50 << 20, threads=32 * warps)
    assert more.sfu_ops == pytest.approx(one.sfu_ops * warps)
    assert more.load_bytes == one.load_bytes  # the bytes moved are the tile's, copies or not


def _facts(warps: int) -> dict:
    return {"blocks_per_sm": 32, "num_warps": warps, "threads": 32 * warps, "shared_memory": 0,
            "sass_instructions": 40, "sass_loop_instructions": 8, "pipeline_depth": 3}


def _sfu_ms(p) -> float:
    return p.breakdown["SFU"] if p.bound == "SFU" else p.hidden["SFU"]


def test_more_warps_on_a_narrow_tile_make_its_library_calls_the_bound():
    ttir = _powf_rows(32, "__nv_fast_powf")
    one, four, sixteen = (predict_from_facts(_facts(w), ttir, H200, {"N": 32768}, (4096,)) for w in (1, 4, 16))
    assert _sfu_ms(four) == pytest.approx(4 * _sfu_ms(one))
    assert one.bound != "SFU" and sixteen.bound == "SFU"
    assert sixteen.time_ms > one.time_ms

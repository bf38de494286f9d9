"""Issue 39 round 2 (bitsandbytes' 8-bit optimizer kernel): MLIR scopes value names by region, so two sibling
loops (one helper with a loop, inlined twice) print the same names. The def-use chains must follow the copy a
use sits in, never the other one."""

from ttinspect.check.ssa import Chains
from ttinspect.dialects.mlir import parse_mlir

# Two copies of one binary-search loop: both print %lower_pivot, %pivot and %val inside their own loop.
_TTIR = """module {
  tt.func public @k(%a_ptr: !tt.ptr<f32> loc("k.py":1:0), %b_ptr: !tt.ptr<f32> loc("k.py":1:0)) {
    %c0_i32 = arith.constant 0 : i32 loc(#loc)
    %c1_i32 = arith.constant 1 : i32 loc(#loc)
    %c8_i32 = arith.constant 8 : i32 loc(#loc)
    %first = scf.for %i = %c0_i32 to %c8_i32 step %c1_i32 iter_args(%lower_pivot = %c0_i32) -> (i32)  : i32 {
      %pivot = arith.addi %lower_pivot, %c1_i32 : i32 loc(#loc)
      %ptr = tt.addptr %a_ptr, %pivot : !tt.ptr<f32>, i32 loc(#loc)
      %val = tt.load %ptr : !tt.ptr<f32> loc(#loc)
      %next = arith.fptosi %val : f32 to i32 loc(#loc)
      scf.yield %next : i32 loc(#loc)
    } loc(#loc)
    %second = scf.for %i = %c0_i32 to %c8_i32 step %c1_i32 iter_args(%lower_pivot = %first) -> (i32)  : i32 {
      %pivot = arith.addi %lower_pivot, %c1_i32 : i32 loc(#loc)
      %ptr = tt.addptr %b_ptr, %pivot : !tt.ptr<f32>, i32 loc(#loc)
      %val = tt.load %ptr : !tt.ptr<f32> loc(#loc)
      %next = arith.fptosi %val : f32 to i32 loc(#loc)
      scf.yield %next : i32 loc(#loc)
    } loc(#loc)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc("k.py":1:0)
"""


def _loads_in_loops():
    module = parse_mlir(_TTIR, stage="ttir")
    chains = Chains(module)
    loops = [op for op in module.ops if op.name == "scf.for"]
    loads = [op for op in module.ops if op.name == "tt.load"]
    return module, chains, loops, loads


def test_each_copy_reads_its_own_base_pointer():
    _, chains, _, loads = _loads_in_loops()
    bases = [chains.sources(chains.load_operands(load)[0])[0] for load in loads]
    assert bases == [{"%a_ptr"}, {"%a_ptr", "%b_ptr"}]  # the second starts from what the first yields


def test_a_load_feeding_its_own_next_address_is_seen_in_its_own_loop():
    _, chains, loops, loads = _loads_in_loops()
    for loop, load in zip(loops, loads, strict=True):
        feeding = chains.loads_feeding(chains.load_operands(load)[0])
        assert any(loop.line < value.line <= loop.end_line for value in feeding)

"""Wrong facts and noisy advice found on real kernels (issue 30, point 5), each pinned by a kernel of the same
shape written for the tests (tests/data/real_shapes/), never by a library kernel's name:

- a warp-specialized TMA matmul on sm_100: the SASS main loop holds the MMAs, and per-iteration facts count
  one K step across the partitions (no "UTCHMMA×4 → none" in a diff with and without warp specialization);
- TTI001 stays silent on a normalization loop that runs once for the values given, and says so when the
  build cannot know how often it runs;
- TTI007 does not ask for a TMA tile where rows are gathered through an index (sm_90), and names TMA gather4
  where the target has it (sm_100);
- the spill advice counts both accumulators of a fused gate/up projection;
- `list` marks device helpers and suggests a launchable kernel; a report on a helper says what it is.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import assert_one_line_error, run_cli, run_cli_ok
from triton_features import TRITON, needs_host_tma

from ttinspect import diff, inspect
from ttinspect.check import check_reference
from ttinspect.check.trip_count import trip_count
from ttinspect.dialects.main_loop import main_loop_slice
from ttinspect.dialects.mlir import parse_mlir
from ttinspect.dialects.sass import parse_sass
from ttinspect.facts.sass import SassView
from ttinspect.kernel.helpers import first_kernel, roles
from ttinspect.refs.resolver import RefOptions

SHAPES = Path(__file__).parent / "data" / "real_shapes"
needs_ws = pytest.mark.skipif(TRITON < (3, 6), reason="warp specialization measured on Triton 3.6 and 3.9")

# --- 1. warp-specialized kernels on sm_100 -------------------------------------------------------------------

WS = str(SHAPES / "ws_matmul.py")
TILE_DESCS = ("tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 128]>, "
              "i32:16, i32:16, i32:16")
WS_KERNELS = {  # kernel -> signature without the trailing WARP_SPECIALIZE constexpr
    "matmul_tma": f"{TILE_DESCS}, 128, 128, 64",
    "matmul_tma_persistent": f"{TILE_DESCS}, 128, 128, 64, 8, 148",
}
PER_K_STEP = ("sass_loop_mma", "sass_loop_tensor_core_ops", "sass_loop_tma", "sass_loop_instructions")


def _ws(kernel: str, on: bool):
    return inspect(f"{WS}:{kernel}", arch="sm_100", signature=f"{WS_KERNELS[kernel]}, {str(on).lower()}")


@needs_host_tma
@needs_ws
@pytest.mark.parametrize("kernel", sorted(WS_KERNELS))
def test_warp_specialized_sass_main_loop_holds_the_mmas(kernel):
    report = _ws(kernel, True)
    assert report["warp_specialized"].startswith("yes")
    sass = report.build.artifacts.text("sass")
    found = main_loop_slice("sass", sass)
    assert found.start_line is not None and found.rule == "tensor-core" and found.tensor_ops > 0, found
    assert "TRY_ALLOC" not in "\n".join(sass.split("\n")[found.header_line - 1:found.header_line + 2])
    assert dict(report["sass_loop_mma"]).get("UTCHMMA", 0) > 0
    assert dict(report["sass_loop_tma"]).get("UTMALDG.2D", 0) > 0  # the load partition's loop: same K step
    explanation = report.fact("sass_loop_instructions").explanation
    assert "MMA loop of dispatch case" in explanation and "load loop of dispatch case" in explanation


@needs_host_tma
@needs_ws
@pytest.mark.parametrize("kernel", sorted(WS_KERNELS))
def test_diff_with_and_without_warp_specialization_keeps_the_k_step(kernel):
    result = diff(_ws(kernel, False), _ws(kernel, True))
    for key in PER_K_STEP:
        change = result.change(key)
        if change is not None:
            assert change.after and change.after_text != "none", (key, change.before_text, change.after_text)
    assert result.change("sass_loop_mma") is None  # UTCHMMA×4 on both sides


DISPATCH_SASS = """
        .type           k,@function
k:
        /*0000*/                   S2R R0, SR_TID.X ;
.L_x_0:
        /*0010*/                   USETMAXREG.TRY_ALLOC.CTAPOOL UP0, 0x100 ;
        /*0020*/                   BRA.U !UP0, `(.L_x_0) ;
        /*0030*/                   LDS.U8 R2, [R0] ;
        /*0040*/                   BRX R2 -0x50                (*"BRANCH_TARGETS .L_x_1,.L_x_2"*);
.L_x_1:
        /*0050*/                   HMMA.16816.F32 R4, R8, R12, R4 ;
        /*0060*/               @P0 BRA `(.L_x_1) ;
        /*0070*/                   BRA `(.L_x_0) ;
.L_x_2:
        /*0080*/                   EXIT ;
"""


def test_a_jump_table_is_followed_to_the_partitions():
    """A dispatch through BRX (a warp-specialized kernel's workers): its targets are branches like any other,
    so the loop in a partition holding the MMA is the main loop, not the register-retry spin before it."""
    kernel = parse_sass(DISPATCH_SASS).functions[0]
    assert [i.jump_targets for i in kernel.instructions if i.opcode == "BRX"] == [(".L_x_1", ".L_x_2")]
    found = main_loop_slice("sass", DISPATCH_SASS)
    assert found.rule == "tensor-core" and found.start_line == found.header_line == 10, found


@needs_host_tma
@needs_ws
def test_sass_without_its_jump_table_leaves_the_loop_unknown_not_wrong():
    """cuobjdump-style SASS without the BRX target list: the partitions' code cannot be reached, so the loop
    holding the MMAs cannot be found — per-iteration facts say so instead of describing a retry loop."""
    sass = _ws("matmul_tma", True).build.artifacts.text("sass")
    hidden = "\n".join(line.split("(*\"BRANCH_TARGETS")[0] + " ;" if "BRANCH_TARGETS" in line else line
                       for line in sass.split("\n"))
    view = SassView.of(parse_sass(hidden))
    assert not view.has_loop and view.loop_unknown and "cannot reach" in view.loop_reason
    slice_ = main_loop_slice("sass", hidden)
    assert slice_.start_line is None and "cannot reach" in slice_.reason


# --- 2. TTI001 on loops that run once ------------------------------------------------------------------------

NORM = f"{SHAPES / 'norm_rows.py'}:layer_norm_fwd"
NORM_ARGS = {"X": "*fp16", "Y": "*fp16", "W": "*fp16", "B": "*fp16", "Mean": "*fp32", "Rstd": "*fp32",
             "stride": "4096", "eps": "1e-5"}


def _norm_findings(width: int | None, block: int = 4096):
    if width is None:  # the width as a type: the build cannot know it
        options = RefOptions.from_cli(signature="*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, "
                                                f"i32:16, i32:16, fp32, {block}", arch="sm_90")
    else:
        options = RefOptions.from_cli(settings=(f"BLOCK_SIZE={block}",), arch="sm_90",
                                      args=tuple(f"{k}={v}" for k, v in {**NORM_ARGS, "N": width}.items()))
    return [f for f in check_reference(NORM, options)[1] if f.id == "TTI001"]


@pytest.mark.parametrize("width", [4096, 3000, 1])
def test_a_loop_that_runs_once_is_not_reported(width):
    assert _norm_findings(width) == []


def test_a_loop_that_runs_twice_is_reported_with_its_trip_count():
    (finding,) = _norm_findings(8192)
    assert "It runs 2 times for the values given (⌈N / 4096⌉)" in finding.why


def test_an_unknown_trip_count_is_said_not_asserted():
    (finding,) = _norm_findings(None)
    assert "unknown to this build (N is a runtime argument" in finding.why and "runs once" in finding.why
    assert "`--arg N=…`" in finding.fix


TTIR_LOOP = """module {
  tt.func public @k(%N: i32 loc("N"(#loc)), %K: i32 loc("K"(#loc))) {
    %c0_i32 = arith.constant 0 : i32 loc(#loc1)
    %c1_i32 = arith.constant 1 : i32 loc(#loc1)
    %c31_i32 = arith.constant 31 : i32 loc(#loc1)
    %c32_i32 = arith.constant 32 : i32 loc(#loc1)
    %0 = arith.addi %K, %c31_i32 : i32 loc(#loc2)
    %1 = arith.divsi %0, %c32_i32 : i32 loc(#loc2)
    scf.for %i = %c0_i32 to {upper} step {step}  : i32 {
      scf.yield loc(#loc3)
    } loc(#loc3)
    tt.return loc(#loc4)
  } loc(#loc)
} loc(#loc)
"""


@pytest.mark.parametrize("upper, step, args, value, formula", [
    ("%1", "%c1_i32", {"K": 100}, 4, "(K + 31) / 32"),  # tl.cdiv(K, 32) trips
    ("%1", "%c1_i32", {}, None, "(K + 31) / 32"),
    ("%N", "%c32_i32", {"N": 32}, 1, "⌈N / 32⌉"),
    ("%N", "%c32_i32", {"N": 33}, 2, "⌈N / 32⌉"),
    ("%N", "%N", {}, 1, "⌈N / N⌉"),  # range(0, N, N): one trip whatever N is
    ("%c0_i32", "%c1_i32", {}, 0, "0"),
])
def test_trip_count(upper, step, args, value, formula):
    module = parse_mlir(TTIR_LOOP.replace("{upper}", upper).replace("{step}", step), stage="ttir")
    loop = next(op for op in module.ops if op.name == "scf.for")
    found = trip_count(module, loop, args)
    assert (found.value, found.formula) == (value, formula)
    assert found.unknowns == (() if value is not None else ("K",))


# --- 3. TTI007 on gathered rows -------------------------------------------------------------------------------

MOE = SHAPES / "moe_gather.py"
MOE_SIG = ("*fp16:16, *fp16:16, *fp16:16, *i32:16, *i32:16, i32:16, i32:16, i32, i32:16, i32:16, i32:16, i32:16, "
           "2, 64, 64, 32")
BOTH_SIG = "*fp16:16, *fp16:16, *fp16:16, *i32:16, *i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32"


def _tma_findings(kernel: str, signature: str, arch: str):
    return [f for f in check_reference(f"{MOE}:{kernel}", RefOptions.from_cli(signature=signature, arch=arch))[1]
            if f.id == "TTI007"]


def test_hopper_keeps_the_gathered_tile_and_advises_the_dense_one():
    (finding,) = _tma_findings("moe_matmul", MOE_SIG, "sm_90")
    assert "gathered tile on line 24 excepted" in finding.title
    assert "cannot gather rows" in finding.why and "line 15" in finding.why  # offs_token, loaded from memory
    assert finding.fix.startswith("Keep the gathered load as it is; load the dense tile on line 25")
    assert ".gather(" not in finding.fix
    # the template is the dense operand's (B, K x N), not the gathered A's
    assert "TensorDescriptor.from_tensor(b, [BLOCK_K, BLOCK_N])" in finding.fix and "(a, [" not in finding.fix
    assert any(e.stage == "ttir" and e.text.startswith("gathered rows") for e in finding.evidence)


def test_blackwell_names_tma_gather4():
    (finding,) = _tma_findings("moe_matmul", MOE_SIG, "sm_100")
    assert "TMA gather4" in finding.why and "a_desc.gather(rows, k * BLOCK_K)" in finding.fix
    assert "block_shape=[1, BLOCK_K]" in finding.fix and "dense tile on line 25" in finding.fix


@pytest.mark.parametrize("arch, fires", [("sm_90", False), ("sm_100", True)])
def test_every_tile_gathered(arch, fires):
    assert bool(_tma_findings("gather_both_matmul", BOTH_SIG, arch)) is fires


# --- 4. spill advice with two accumulators --------------------------------------------------------------------

def test_spill_advice_counts_both_accumulators():
    signature = "*fp16:16, *fp16:16, *fp16:16, *fp16:16, " + ", ".join(["i32:16"] * 6) + ", 128, 128, 64"
    _, found = check_reference(f"{SHAPES / 'gate_up_projection.py'}:gate_up_matmul",
                               RefOptions.from_cli(signature=signature, arch="sm_80"))
    (spill,) = [f for f in found if f.id == "TTI003"]
    assert "The 2 dot accumulators live across the loop (acc_gate, acc_up)" in spill.fix
    assert "2 × 128×128/(32×4) = 2 × 128 = 256 fp32 registers per thread" in spill.fix
    assert "more than the 255 a thread may have" in spill.fix and "halves it to 128" in spill.fix
    assert "The dot's accumulator alone" not in spill.fix


def test_spill_advice_asks_for_the_factor_it_takes():
    """Two 128x256 accumulators over 4 warps: 512 per thread; halving leaves 256, still over 255."""
    signature = "*fp16:16, *fp16:16, *fp16:16, *fp16:16, " + ", ".join(["i32:16"] * 6) + ", 128, 256, 64"
    _, found = check_reference(f"{SHAPES / 'gate_up_projection.py'}:gate_up_matmul",
                               RefOptions.from_cli(signature=signature, arch="sm_80"))
    (spill,) = [f for f in found if f.id == "TTI003"]
    assert "Halving it leaves 256, still not under the 255: it takes a quarter, 128" in spill.fix
    assert "halves it to 256" not in spill.fix


# --- 5. device helpers in `list` and `report` -----------------------------------------------------------------

HELPERS = str(SHAPES / "helpers_and_kernel.py")


def test_list_marks_helpers_and_suggests_a_kernel():
    listing = json.loads(run_cli_ok("list", HELPERS, "--json"))
    helper = {k["name"]: k["helper"] for k in listing["kernels"]}
    assert helper["silu"] == {"called_by": ["swiglu_forward", "silu_forward"], "returns_value": True}
    assert helper["_store_rows"] == {"called_by": ["swiglu_forward"], "returns_value": False}
    assert helper["swiglu_forward"] is None and helper["silu_forward"] is None
    assert listing["suggested"] == "swiglu_forward"
    text = run_cli_ok("list", HELPERS, env={"COLUMNS": "200"})
    assert "jit (helper: called by swiglu_forward, silu_forward)" in text
    assert f"inspect one: ttinspect report {HELPERS}:swiglu_forward" in text


def test_a_report_on_a_helper_says_it_is_a_device_function():
    result = run_cli("report", f"{HELPERS}:silu", "--signature", "fp32")
    assert_one_line_error(result, 3, f"{HELPERS}:9:", "silu is a device function (called by swiglu_forward, "
                          "silu_forward; it returns a value), not a kernel", "helpers_and_kernel.py:swiglu_forward")


@pytest.mark.parametrize("sources, expected, suggested", [
    ({"act": "def act(x):\n    return x * 2\n", "kern": "def kern(p):\n    tl.store(p, act(1))\n"},
     {"act": ("kern",), "kern": ()}, "kern"),
    ({"k": "def k(p):\n    if p:\n        return\n    tl.store(p, 1)\n"}, {"k": ()}, "k"),  # a bare return
    ({"only": "def only(x):\n    return x\n"}, {"only": ()}, None),  # returns a value: never launchable
    ({"inner": "def inner(p):\n    tl.store(p, 1)\n", "outer": "def outer(p):\n    inner(p)\n"},
     {"inner": ("outer",), "outer": ()}, "outer"),
    ({"k": "def k(p):\n    f = lambda: 3\n    tl.store(p, f())\n"}, {"k": ()}, "k"),  # a lambda's return
])
def test_roles(sources, expected, suggested):
    found = roles(sources)
    assert {name: role.called_by for name, role in found.items()} == expected
    assert first_kernel(list(sources), found) == suggested

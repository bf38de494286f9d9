"""Facts per loop, pipeline depth from two witnesses (PTX and TTGIR), Blackwell TMA + tcgen05 depth,
warp specialization and persistent kernels (docs/facts.md, "Every loop")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from triton_features import TRITON, needs_host_tma

from ttinspect import diff, inspect
from ttinspect.cli.main import cli as main
from ttinspect.facts.loops import Reading, depth_fact

DATA = Path(__file__).parent / "data"
LOOPS = str(DATA / "loop_kernels.py")
NORM_SIG = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, fp32, 1024"
WS_SIG = ("tensordesc<fp16[128, 64]>, tensordesc<fp16[64, 128]>, tensordesc<fp16[128, 128]>, "
          "i32:16, i32:16, i32:16, 128, 128, 64")
AGREE = "Two witnesses agree"
needs_ws = pytest.mark.skipif(TRITON < (3, 6), reason="warp specialization measured on Triton 3.6 and 3.9")


def _loops(report) -> list[dict]:
    return report.loops


def _depths(report) -> list:
    return [loop["facts"]["pipeline_depth"].value for loop in report.loops]


# --- the witnesses, as a rule --------------------------------------------------------------------------

def test_agreeing_witnesses_make_a_known_depth_that_says_so():
    fact = depth_fact(Reading(3, "wait_group 2 / 2 + 2"), Reading(3, "a 3-slot ring"))
    assert fact.value == 3 and AGREE in fact.explanation and "3-slot ring" in fact.explanation


def test_disagreeing_witnesses_are_unknown_with_both_readings():
    fact = depth_fact(Reading(3, "wait_group 2 / 2 + 2"), Reading(4, "a 4-slot ring"))
    assert fact.value is None
    assert "disagree" in fact.unknown and "PTX reads 3" in fact.unknown and "TTGIR reads 4" in fact.unknown


def test_one_witness_is_said():
    fact = depth_fact(Reading(None, "no PTX loop"), Reading(2, "a 2-slot ring"))
    assert fact.value == 2 and "One witness: TTGIR" in fact.explanation and "no PTX loop" in fact.explanation


# --- the main loop: PTX wait_group against the TTGIR ring (Ampere keeps S - 1 slots, Hopper S) ----------

@pytest.mark.parametrize("arch", ["sm_80", "sm_89", "sm_90", "sm_120"])
@pytest.mark.parametrize("stages", [2, 3, 4, 5])
def test_both_witnesses_read_the_configured_depth(arch, stages):
    report = inspect("opt", arch=arch, num_stages=stages)
    fact = report.fact("pipeline_depth")
    assert fact.value == stages, fact
    assert AGREE in fact.explanation, fact.explanation
    # the rule that makes them agree: an asynchronous MMA (wgmma) keeps one slot more
    slots = stages if arch == "sm_90" else stages - 1
    assert f"a {slots}-slot ring" in fact.explanation


def test_num_stages_1_is_depth_1_by_both():
    fact = inspect("opt", arch="sm_90", num_stages=1).fact("pipeline_depth")
    assert fact.value == 1 and AGREE in fact.explanation


# --- every loop, with its own tl.range(num_stages=...) ---------------------------------------------------

@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("s1,s2", [(3, 2), (1, 3), (4, 4)])
def test_each_loop_has_its_own_depth(arch, s1, s2):
    report = inspect(f"{LOOPS}:rms_norm", arch=arch, signature=f"{NORM_SIG}, {s1}, {s2}")
    loops = _loops(report)
    assert [loop["facts"]["line"].value for loop in loops] == [12, 17]
    assert _depths(report) == [s1, s2] and report.loop_depths == (s1, s2)
    for loop in loops:
        assert loop["facts"]["depth_as_asked"].value == "yes"
        depth = loop["facts"]["pipeline_depth"]
        assert AGREE in depth.explanation, depth.explanation
    commits = [loop["facts"]["commit_groups"].value for loop in loops]
    assert commits == [1 if s1 > 1 else 0, 2 if s2 > 1 else 0]  # one group per pipelined load


def test_report_shows_a_group_per_loop_and_json_a_loops_list():
    runner = CliRunner()
    ref = f"{LOOPS}:rms_norm"
    text = runner.invoke(main, ["report", ref, "--arch", "sm_80", "--signature", f"{NORM_SIG}, 3, 2"])
    assert text.exit_code == 0, text.output
    assert "loop 1 · line 12 · loop" in text.output and "loop 2 · line 17 · loop" in text.output
    assert text.output.count("pipeline depth (num_stages)") == 3  # the kernel's, then each loop's
    out = runner.invoke(main, ["report", ref, "--arch", "sm_80", "--signature", f"{NORM_SIG}, 3, 2", "--json"])
    data = json.loads(out.output)
    assert [(loop["index"], loop["line"], loop["role"]) for loop in data["loops"]] == [(1, 12, "loop"), (2, 17, "loop")]
    assert [loop["facts"]["pipeline_depth"]["value"] for loop in data["loops"]] == [3, 2]
    assert not any(key.startswith("loop1.") for key in data["facts"])  # per-loop facts live in `loops`


def test_a_single_loop_kernel_gets_its_heading_without_repeating_the_facts():
    out = CliRunner().invoke(main, ["report", "naive", "--arch", "sm_80"])
    assert out.exit_code == 0 and "loop 1 · line 37 · K loop" in out.output
    after = out.output.split("loop 1 · line 37 · K loop", 1)[1]
    assert "the facts above are its facts" in after and "pipeline depth" not in after
    assert len(inspect("naive", arch="sm_80").loops) == 1  # the API and JSON still have it


# --- attention: one K/V loop with two dots ---------------------------------------------------------------

@pytest.mark.parametrize("arch,path", [("sm_80", "mma.sync"), ("sm_90", "wgmma")])
def test_attention_loop(arch, path):
    report = inspect("attn", arch=arch)
    (loop,) = _loops(report)
    assert loop["facts"]["role"].value == "K loop" and loop["facts"]["dots"].value == 2
    assert dict(loop["facts"]["loads"].value) == {"cp.async": 2}
    assert report.pipeline_depth == 3 and AGREE in report.fact("pipeline_depth").explanation
    assert report.tensor_core_path == path


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_causal_attention_has_two_loops_from_one_helper(arch):
    """tutorial 06's shape: one @triton.jit helper holds the loop, called twice (left of the diagonal, then
    on it); each loop is told apart by the kernel line that calls the helper."""
    report = inspect("attn", arch=arch, CAUSAL=True)
    loops = _loops(report)
    assert [loop["facts"]["role"].value for loop in loops] == ["K loop", "K loop"]
    lines = [loop["facts"]["line"].value for loop in loops]
    assert lines[0] < lines[1] and all(50 <= n <= 62 for n in lines), lines  # the two calls, not the helper
    assert report.loop_depths == (3, 3)
    assert all(AGREE in loop["facts"]["pipeline_depth"].explanation for loop in loops)


# --- persistent: the tile loop and the K loop told apart -------------------------------------------------

@needs_host_tma
@pytest.mark.parametrize("arch", ["sm_90", "sm_100"])
def test_persistent_kernel_flattened_tile_and_k_loop(arch):
    report = inspect("opt_tma", arch=arch)
    roles = [loop["facts"]["role"].value for loop in _loops(report)]
    assert "tile + K loop (flattened)" in roles, roles
    flat = next(loop for loop in _loops(report) if loop["facts"]["role"].value.startswith("tile + K"))
    assert flat["facts"]["pipeline_depth"].value == 3 and flat["facts"]["dots"].value == 1
    # every other loop is the tile loop without K work (the path Triton keeps beside the flattened one)
    assert all(r in ("tile loop", "tile + K loop (flattened)") for r in roles)


JIT_HEADER = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
# a persistent tile loop (line 7 of the file) around a K loop (line 10), without flatten
TILE_AND_K_LOOPS = (
    "    for t in range(tl.program_id(0), T, 4):\n"
    "        offs = tl.arange(0, BLOCK)\n"
    "        acc = tl.zeros((BLOCK, BLOCK), tl.float32)\n"
    "        for k in range(0, K, BLOCK):\n"
    "            a = tl.load(a_ptr + (k + offs)[:, None] * BLOCK + offs[None, :])\n"
    "            acc = tl.dot(a, a, acc)\n"
    "        tl.store(c_ptr + t * BLOCK * BLOCK + offs[:, None] * BLOCK + offs[None, :], acc)\n")


def test_nested_tile_loop_without_flatten(tmp_path):
    kernel = tmp_path / "persistent.py"
    kernel.write_text(JIT_HEADER + "def k(a_ptr, c_ptr, T, K, BLOCK: tl.constexpr):\n" + TILE_AND_K_LOOPS)
    report = inspect(f"{kernel}:k", arch="sm_80", signature="*fp16:16, *fp32:16, i32:16, i32:16, 32")
    by_role = {loop["facts"]["role"].value: loop for loop in _loops(report)}
    assert set(by_role) == {"tile loop", "K loop"}
    assert by_role["K loop"]["facts"]["parent"].value == by_role["tile loop"]["index"]
    assert by_role["K loop"]["facts"]["line"].value == 10 and by_role["tile loop"]["facts"]["line"].value == 7


# --- Blackwell: TMA + tcgen05 depth (stages + 2 barriers), two kernels, num_stages 1-6 --------------------

@needs_host_tma
@pytest.mark.parametrize("stages", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("kernel", ["opt_tma", "matmul_ws"])
def test_blackwell_tma_tcgen05_depth(kernel, stages):
    if kernel == "opt_tma":  # 128x128 tiles: 6 stages still fit sm_100's shared memory
        report = inspect("opt_tma", arch="sm_100", num_stages=stages, BLOCK_SIZE_N=128)
    else:
        report = inspect(f"{LOOPS}:matmul_ws", arch="sm_100", signature=f"{WS_SIG}, false", num_stages=stages)
    fact = report.fact("pipeline_depth")
    assert fact.value == stages, fact
    assert AGREE in fact.explanation, fact.explanation
    assert report.tensor_core_path == "tcgen05"


# --- warp specialization ---------------------------------------------------------------------------------

@needs_host_tma
@needs_ws
@pytest.mark.parametrize("stages", [3, 4])
def test_warp_specialized_partitions_registers_and_channel(stages):
    report = inspect(f"{LOOPS}:matmul_ws", arch="sm_100", signature=f"{WS_SIG}, true", num_stages=stages)
    assert report["warp_specialized"] == "yes: 3 partitions"
    parts = dict(report["ws_partitions"])
    assert parts["default"].endswith("epilogue") and parts["partition0"].endswith("MMA")
    assert parts["partition1"].endswith("loads")
    registers = report.fact("ws_registers")
    assert registers.known and AGREE in registers.explanation, registers
    assert dict(registers.value)["partition0"] < dict(registers.value)["default"]
    assert report["ws_channel_depth"] == stages  # the num_stages option, whatever tl.range asks
    assert report.pipeline_depth == stages
    assert {loop["facts"]["partition"].value for loop in _loops(report)} == {"partition0", "partition1"}


@needs_host_tma
def test_warp_specialize_asked_but_not_applied_on_hopper():
    report = inspect(f"{LOOPS}:matmul_ws", arch="sm_90", signature=f"{WS_SIG}, true", num_warps=8)
    assert report["warp_specialized"].startswith("no: asked on line 31, not applied")
    assert report.pipeline_depth == 3


def _diff_without_and_with_warp_specialization():
    return diff(inspect(f"{LOOPS}:matmul_ws", arch="sm_100", signature=f"{WS_SIG}, false"),
                inspect(f"{LOOPS}:matmul_ws", arch="sm_100", signature=f"{WS_SIG}, true"))


@needs_host_tma
@needs_ws
def test_diff_with_and_without_warp_specialization_explains_it():
    change = _diff_without_and_with_warp_specialization().change("warp_specialized")
    assert change is not None and "producer" in change.explanation and "setmaxnreg" in change.explanation


def test_tensordesc_signature_entries():
    from ttinspect.kernel.arguments import parse_signature
    from ttinspect.errors import UsageError
    from ttinspect.kernel.argument_types import TensorDesc

    assert parse_signature("tensordesc<fp16[128, 64]>, i32:16")[0] == TensorDesc("fp16", (128, 64))
    with pytest.raises(UsageError, match="not a descriptor"):
        parse_signature("tensordesc<fp16>")


JUMP_TABLE_PTX = """
.version 8.7
.target sm_100a
.address_size 64
.visible .entry k()
{
	.reg .b32 	%r<4>;
{table}
	mov.u32 	%r1, %tid.x;
$L__BB0_1:
	brx.idx 	%r1, {name};
$L__BB0_2:
	add.s32 	%r2, %r2, 1;
	setp.lt.s32 	%p1, %r2, 8;
	@%p1 bra 	$L__BB0_2;
	bra.uni 	$L__BB0_1;
$L__BB0_3:
	ret;
}
"""


@pytest.mark.parametrize("table,name", [
    ("JTI0_0:\n\t.branchtargets\n\t\t$L__BB0_2,\n\t\t$L__BB0_3;", "JTI0_0"),  # Triton 3.9's spelling
    ("\t$L_brx_0: .branchtargets\n\t\t$L__BB0_2,\n\t\t$L__BB0_3;", "$L_brx_0"),  # Triton 3.6's
])
def test_a_jump_table_is_control_flow(table, name):
    """Warp-specialized kernels send each partition's warps to their code through `brx.idx`: without its
    edges the partitions' loops are unreachable and no loop of theirs is found."""
    from ttinspect.dialects.ptx import parse_ptx

    kernel = parse_ptx(JUMP_TABLE_PTX.replace("{table}", table).replace("{name}", name)).kernel
    assert kernel is not None
    depths = sorted(loop.depth for loop in kernel.loops)
    assert depths == [1, 2]  # the dispatch loop, and the partition's loop inside it


# --- loops that are easy to confuse (found by review) -----------------------------------------------------

def test_an_outer_loop_does_not_take_the_inner_loops_pipeline():
    report = inspect(f"{LOOPS}:nested_reduction", arch="sm_80", signature="*fp32:16, *fp32:16, i32:16, i32:16, 256")
    outer, inner = _loops(report)
    assert inner["facts"]["parent"].value == outer["index"]
    assert inner["facts"]["pipeline_depth"].value == 2
    assert outer["facts"]["pipeline_depth"].value is None  # its copies and waits are the inner loop's prologue
    assert outer["facts"]["commit_groups"].value == 0


def test_an_unrolled_inner_loop_leaves_the_ptx_loop_to_its_parent():
    report = inspect(f"{LOOPS}:unrolled_inner", arch="sm_90", signature="*fp32:16, *fp32:16, i32:16, 256")
    outer, inner = _loops(report)
    assert outer["facts"]["commit_groups"].known and outer["facts"]["pipeline_depth"].value == 1
    assert inner["facts"]["commit_groups"].unknown.startswith("not applicable: LLVM unrolled its 4 trips")


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_two_loops_on_one_line_are_matched_in_order(arch):
    report = inspect(f"{LOOPS}:two_calls_one_line", arch=arch, signature="*fp32:16, *fp32:16, *fp32:16, i32:16, 256")
    assert report.loop_depths == (2, 4)
    assert [loop["facts"]["wait_group"].value for loop in _loops(report)] == [(0,), (2,)]
    assert report.pipeline_depth in (2, 4) and AGREE in report.fact("pipeline_depth").explanation


@needs_host_tma
@pytest.mark.parametrize("arch", ["sm_90", "sm_100"])
def test_each_tma_loop_counts_its_own_barriers_and_ring(arch):
    report = inspect(f"{LOOPS}:three_tma_loops", arch=arch, signature=WS_SIG)
    assert report.loop_depths == (2, 2, 4)
    assert all(AGREE in loop["facts"]["pipeline_depth"].explanation for loop in _loops(report))


def test_a_nested_k_loop_in_a_helper_is_not_called_flattened(tmp_path):
    kernel = tmp_path / "helper_nested.py"
    kernel.write_text(JIT_HEADER + "def _tiles(a_ptr, c_ptr, T, K, BLOCK: tl.constexpr):\n" + TILE_AND_K_LOOPS
                      + "\n\n@triton.jit\ndef k(a_ptr, c_ptr, T, K, BLOCK: tl.constexpr):\n"
                      "    _tiles(a_ptr, c_ptr, T, K, BLOCK)\n")
    report = inspect(f"{kernel}:k", arch="sm_80", signature="*fp16:16, *fp32:16, i32:16, i32:16, 32")
    assert [loop["facts"]["role"].value for loop in _loops(report)] == ["tile loop", "K loop"]


@needs_host_tma
@needs_ws
def test_diff_compares_only_the_same_loop_on_both_sides():
    # the warp-specialized side's loops are the partitions' shares of the other's loop: not "the same loop"
    assert not [c for c in _diff_without_and_with_warp_specialization().changes if c.group.startswith("loop ")]
    c = inspect(f"{LOOPS}:rms_norm", arch="sm_80", signature=f"{NORM_SIG}, 3, 2")
    d = inspect(f"{LOOPS}:rms_norm", arch="sm_80", signature=f"{NORM_SIG}, 3, 4")
    changed = [ch.key for ch in diff(c, d).changes if ch.key.endswith("pipeline_depth")]
    assert changed == ["pipeline_depth", "loop2.pipeline_depth"]  # the main loop is the second pass

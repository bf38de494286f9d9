"""The performance model (ttinspect/perf/, docs/predict.md): the device table, the model's arithmetic on a
hand-written kernel, predict()/rank() and `ttinspect predict`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import assert_one_line_error, run_cli, run_cli_ok
from ttinspect.errors import UsageError
from ttinspect.perf.devices import DEVICES, device_for, find_device
from ttinspect.perf.grid_text import grid_from_text
from ttinspect.perf.ir_program import parse_ir_program
from ttinspect.perf.model import LAUNCH_US, LATENCY_CYCLES, predict_from_facts
from ttinspect.perf.terms import HBM_ACHIEVABLE
from ttinspect.perf.work import count_work


@pytest.mark.parametrize("name, expected", [
    ("H100 SXM", "H100 SXM"), ("h100-sxm", "H100 SXM"), ("H100_SXM5", "H100 SXM"), ("nvidia h100", "H100 SXM"),
    ("H200", "H200"), ("mi300x", "MI300X"), ("AMD Instinct MI300X", "MI300X"), ("rtx-4090", "RTX 4090"),
    ("a100 pcie", "A100 PCIe"), ("B200", "B200"),
])
def test_device_names_are_read_loosely(name, expected):
    assert find_device(name).name == expected


@pytest.mark.parametrize("arch, expected", [("sm_90", "H100 SXM"), ("sm_90a", "H100 SXM"), ("sm_89", "RTX 4090"),
                                            ("sm_80", "A100 SXM"), ("sm_100", "B200"), ("gfx942", "MI300X")])
def test_each_target_has_a_default_device(arch, expected):
    assert device_for(arch).name == expected


def test_a_device_of_another_target_and_an_unknown_name_are_refused_in_one_line():
    with pytest.raises(UsageError, match="runs sm_80, not sm_90"):
        device_for("sm_90", "A100")
    with pytest.raises(UsageError, match="unknown device 'H300'; known: H100 SXM"):
        find_device("H300")


def test_every_row_is_cited_and_has_the_fields_the_model_reads():
    for device in DEVICES:
        assert device.source and device.sms > 0 and device.hbm_gbps > 0 and device.l2_gbps > 0
        assert {"fp16", "bf16", "fp32"} <= set(device.tflops)


# A vector add as Triton 3.9 writes its TTIR (one program: 1024 fp32 elements of x and y in, 1024 out).
ADD_TTIR = """module {
{FUNC}
    %c1024_i32 = arith.constant 1024 : i32 loc(#loc1)
    %pid = tt.get_program_id x : i32 loc(#loc2)
    %start = arith.muli %pid, %c1024_i32 : i32 loc(#loc3)
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32> loc(#loc4)
    %s = tt.splat %start : i32 -> tensor<1024xi32> loc(#loc5)
    %offs = arith.addi %s, %r : tensor<1024xi32> loc(#loc5)
    %xp = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>> loc(#loc6)
    %xa = tt.addptr %xp, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32> loc(#loc6)
    %x = tt.load %xa : tensor<1024x!tt.ptr<f32>> loc(#loc7)
    %yp = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>> loc(#loc8)
    %ya = tt.addptr %yp, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32> loc(#loc8)
    %y = tt.load %ya : tensor<1024x!tt.ptr<f32>> loc(#loc9)
    %o = arith.addf %x, %y : tensor<1024xf32> loc(#loc10)
    %op = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>> loc(#loc11)
    %oa = tt.addptr %op, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32> loc(#loc11)
    tt.store %oa, %o : tensor<1024x!tt.ptr<f32>> loc(#loc12)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
"""
FUNC = ("  tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc(\"x_ptr\"(#loc)), "
        "%y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc(\"y_ptr\"(#loc)), "
        "%out_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc(\"out_ptr\"(#loc)), "
        "%n: i32 {tt.divisibility = 16 : i32} loc(\"n\"(#loc))) attributes {noinline = false} {")
ADD_TTIR = ADD_TTIR.replace("{FUNC}", FUNC)


def test_work_of_a_vector_add_by_hand():
    work = count_work(parse_ir_program(ADD_TTIR), {"n": 1 << 24}, (16384, 1, 1), wave=132 * 8, l2_bytes=50 << 20)
    assert work.load_bytes == pytest.approx(16384 * 2 * 4096)  # two 4 KB tiles per program (3 waves sampled)
    assert work.store_bytes == pytest.approx(16384 * 4096)
    assert work.dram_bytes == pytest.approx(work.load_bytes + work.store_bytes)  # no two programs share a tile
    # the offsets addi and the addf: address arithmetic is ALU work too
    assert work.fma_ops == pytest.approx(16384 * 2 * 1024) and not work.tc_flops and not work.unknown


def test_the_breakdown_adds_up_and_dram_bounds_a_vector_add():
    device = find_device("H100 SXM")
    facts = {"blocks_per_sm": 8, "shared_memory": 0, "tensor_core_path": "none", "pipeline_depth": None}
    p = predict_from_facts(facts, ADD_TTIR, device, {"n": 1 << 24}, (16384,))
    assert p.bound == "DRAM"
    assert p.time_ms == pytest.approx(sum(p.breakdown.values()))
    dram_ms = 16384 * 3 * 4096 / (device.hbm_gbps * 1e9 * HBM_ACHIEVABLE) * 1e3
    # the other terms are far under DRAM: the soft maximum adds nothing measurable
    assert p.time_ms == pytest.approx(LAUNCH_US * 1e-3 + dram_ms, rel=1e-6)
    # 16384 / 132: the busiest SM runs 125 CTAs, 8 at a time: 16 rounds, each one round trip (no SASS counts)
    chain_ms = 16 * LATENCY_CYCLES / (device.boost_mhz * 1e6) * 1e3
    assert p.hidden["dependency chain (memory latency)"] == pytest.approx(chain_ms)
    assert p.gbps == pytest.approx(16384 * 3 * 4096 / (p.time_ms * 1e-3) / 1e9)
    assert any("no SASS counts" in a for a in p.assumptions)


@pytest.mark.parametrize("facts, grid, reason", [
    ({"blocks_per_sm": 1, "shared_memory": 300_000}, (4,), "out of resource"),
    ({"blocks_per_sm": 8, "shared_memory": 0}, None, "no grid"),
    ({"blocks_per_sm": None, "shared_memory": 0}, (4,), "CTAs per SM unknown"),
])
def test_what_cannot_be_predicted_says_why(facts, grid, reason):
    p = predict_from_facts(facts, ADD_TTIR, find_device("H100 SXM"), {"n": 4096}, grid)
    assert p.time_ms is None and reason in p.reason


def test_a_loop_bound_from_memory_is_named():
    ttir = ADD_TTIR.replace("tt.return loc(#loc)", """%b = tt.load %x_ptr : !tt.ptr<i32> loc(#loc13)
    scf.for %i = %c1024_i32 to %b step %c1024_i32  : i32 {
      tt.store %oa, %o : tensor<1024x!tt.ptr<f32>> loc(#loc14)
    } loc(#loc15)
    tt.return loc(#loc)""")
    p = predict_from_facts({"blocks_per_sm": 8, "shared_memory": 0}, ttir, find_device("H100 SXM"), {"n": 4096}, (4,))
    assert p.time_ms is None and "has no trip count" in p.reason


def test_grid_text():
    grid = grid_from_text("cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)")
    assert grid({"M": 1000, "N": 512, "BLOCK_M": 128, "BLOCK_N": 64}) == (64,)
    assert grid_from_text("(cdiv(N_CTX, BLOCK_M), Z)")({"N_CTX": 1024, "BLOCK_M": 128, "Z": 4}) == (8, 4)
    with pytest.raises(UsageError, match="only numbers, names"):
        grid_from_text("__import__('os')")({})


ADD_KERNEL = (Path(__file__).parent / "data" / "add_kernel_file.py").read_text()


def test_predict_and_rank_a_variant(tmp_path):
    from ttinspect import Pointer, predict, rank

    grid = lambda meta: (-(-meta["n_elems"] // meta["BLOCK_SIZE"]),)  # noqa: E731
    p = predict("add", arch="sm_90", device="H100 SXM", config={"BLOCK_SIZE": 1024}, grid=grid)
    assert p.time_ms > 0 and p.bound and p.gbps > 0 and p.assumptions
    args = {"x_ptr": Pointer("fp32"), "y_ptr": Pointer("fp32"), "output_ptr": Pointer("fp32"), "n_elems": 1 << 20}
    configs = [{"BLOCK_SIZE": 128, "num_warps": 1}, {"BLOCK_SIZE": 2048, "num_warps": 4}]
    # a file of its own (kernels/ is a package named `kernels`, a name another test's import may hold)
    source = tmp_path / "add_kernel.py"
    source.write_text(ADD_KERNEL)
    ranked = rank(f"{source}:add_kernel", configs, args=args, grid=grid, arch="sm_90", jobs=1)
    assert [r.config for r in ranked] in (configs, configs[::-1])
    assert all(r.time_ms is not None for r in ranked), [getattr(r, "reason", None) for r in ranked]
    assert ranked[0].time_ms <= ranked[1].time_ms


def test_predict_command():
    out = run_cli_ok("predict", "add", "--arch", "sm_90", "--launch-grid", "cdiv(n_elems, BLOCK_SIZE)", "--json")
    data = json.loads(out)
    assert data["device"] == "H100 SXM" and data["time_ms"] == pytest.approx(sum(data["breakdown"].values()))
    text = run_cli_ok("predict", "add", "--arch", "sm_90", "--device", "h200", "--launch-grid",
                      "cdiv(n_elems, BLOCK_SIZE)")
    assert "add on H200:" in text and "where the time goes:" in text
    assert_one_line_error(run_cli("predict", "add", "--arch", "sm_90", "--device", "H300"), 2, "unknown device")


AUTOTUNED = """\
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK_SIZE": 256}, num_warps=2), triton.Config({"BLOCK_SIZE": 2048},
                          num_warps=8, num_stages=2)], key=["n_elems"])
@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elems, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elems
    tl.store(output_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)
"""


def test_rank_takes_an_autotune_list_s_configs_and_says_each_one(tmp_path, monkeypatch):
    from ttinspect import Pointer, rank

    source = tmp_path / "autotuned_add.py"
    source.write_text(AUTOTUNED)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    kernel = importlib.import_module("autotuned_add").add_kernel
    args = {"x_ptr": Pointer("fp32"), "y_ptr": Pointer("fp32"), "output_ptr": Pointer("fp32"), "n_elems": 1 << 22}
    grid = lambda meta: (-(-meta["n_elems"] // meta["BLOCK_SIZE"]),)  # noqa: E731
    # its own list (configs omitted): each result says which config it is, its constexprs and options
    own = rank(kernel, args=args, grid=grid, arch="sm_90")
    assert sorted(r.config["BLOCK_SIZE"] for r in own) == [256, 2048]
    assert all(r.time_ms is not None and r.config["num_warps"] in (2, 8) for r in own)
    # the list's triton.Config objects given: each result carries the object as given
    given = rank(kernel, kernel.configs, args=args, grid=grid, arch="sm_90")
    assert {id(r.config) for r in given} == {id(c) for c in kernel.configs}
    assert [r.time_ms for r in given] == [r.time_ms for r in own]


WITH_A_TEXT_CONSTEXPR = """import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, n, reduction: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n)
    if reduction == "mean":
        v = v / n
    tl.store(x_ptr + offs, v, mask=offs < n)
"""


def test_a_call_sites_text_constexpr_goes_with_the_arguments_as_a_launch_passes_it(tmp_path):
    """liger's cross entropy takes `reduction="mean"`: a constexpr its call site passes beside the arguments,
    which rank() has no other place for (the configs are the list's)."""
    from ttinspect import Pointer, rank

    source = tmp_path / "text_constexpr.py"
    source.write_text(WITH_A_TEXT_CONSTEXPR)
    args = {"x_ptr": Pointer("fp32"), "n": 1 << 20, "reduction": "mean"}
    (ranked,) = rank(f"{source}:scale", [{"BLOCK": 1024, "num_warps": 4}], args=args, grid=(1024,), arch="sm_90")
    assert ranked.time_ms is not None and ranked.reason is None
    # text for a runtime parameter is still the mistake it was, in its own words
    (wrong,) = rank(f"{source}:scale", [{"BLOCK": 1024, "reduction": "sum"}], args={**args, "x_ptr": "mean"},
                    grid=(1024,), arch="sm_90")
    assert wrong.time_ms is None and "argument x_ptr: 'mean' is not a type" in wrong.reason


WITH_A_CONFIG_THAT_DOES_NOT_COMPILE = """import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 100}, num_warps=4),
                          triton.Config({"BLOCK": 256}, num_warps=8)], key=["n"])
@triton.jit
def scale(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
"""


@pytest.mark.parametrize("by", ["reference", "object"])
def test_rank_takes_the_whole_list_also_a_config_that_does_not_compile(tmp_path, monkeypatch, by):
    """An autotuned kernel's own list is read from its autotuner: a config that does not compile (BLOCK 100:
    tl.arange wants a power of 2) is ranked last with its reason and its config, and the configs after it are
    ranked too (the list was counted by compiling until one failed: here 1 of 3)."""
    from ttinspect import Pointer, rank

    (tmp_path / "scaled.py").write_text(WITH_A_CONFIG_THAT_DOES_NOT_COMPILE)
    if by == "reference":
        kernel = f"{tmp_path / 'scaled.py'}:scale"
    else:
        monkeypatch.syspath_prepend(str(tmp_path))
        import importlib

        kernel = importlib.import_module("scaled").scale
    ranked = rank(kernel, args={"x_ptr": Pointer("fp32"), "n": 1 << 20}, arch="sm_90",
                  grid=lambda meta: (-(-meta["n"] // meta["BLOCK"]),))
    assert sorted(r.config["BLOCK"] for r in ranked[:2]) == [128, 256] and all(r.time_ms for r in ranked[:2])
    assert ranked[2].config["BLOCK"] == 100 and ranked[2].time_ms is None and "CompileError" in ranked[2].reason


RANKING_SCRIPT = """from ttinspect import rank

print("started", flush=True)
ranked = rank("add", [{"BLOCK_SIZE": 256}, {"BLOCK_SIZE": 512}], arch="sm_90",
              grid=lambda meta: (4096 // meta["BLOCK_SIZE"],))
print(sorted(r.config["BLOCK_SIZE"] for r in ranked if r.time_ms))
"""


def test_rank_at_a_script_s_top_level(tmp_path):
    """rank() called at a script's top level, as docs/predict.md shows it: the worker processes that compile a
    cold list never run the script again (spawn and forkserver import a program's __main__ in each worker,
    where its call would start processes while they bootstrap)."""
    script = tmp_path / "ranking.py"
    script.write_text(RANKING_SCRIPT)
    env = {**os.environ, "TTINSPECT_CACHE_DIR": str(tmp_path / "cache"), "TRITON_CACHE_DIR": str(tmp_path / "triton")}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0 and done.stdout.splitlines() == ["started", "[256, 512]"], done.stderr[-3000:]
    assert "bootstrapping" not in done.stderr, done.stderr[-3000:]


def test_a_named_device_is_its_own_target_in_the_api():
    from ttinspect import predict

    p = predict("add", device="H200")  # no arch: the H200's (sm_90), the variant's own grid
    assert p.device == "H200" and p.time_ms > 0 and p.details["programs"] == (1 << 24) // 1024


def test_ranked_configs_given_as_triton_configs_or_indices_serialize():
    import triton

    from ttinspect import rank

    given = triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32}, num_warps=4, num_stages=3)
    ranked = rank("naive", [given], device="H100")
    assert ranked[0].config is given and ranked[0].time_ms is not None
    assert ranked[0].as_dict()["config"] == {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32,
                                             "num_warps": 4, "num_stages": 3, "num_ctas": 1}
    by_index = rank("opt", [1, 2], arch="sm_90")
    assert {r.as_dict()["config"]["config"] for r in by_index} == {1, 2}

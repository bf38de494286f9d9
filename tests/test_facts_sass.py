"""facts/sass.py on the captured SASS (both Triton versions) and on fresh offline builds.

Per-iteration counts are static: one trip around the main loop's blocks. Counts leave out the
never-executed `@!PT` padding ptxas inserts (`@!PT LDS RZ, [RZ]`).
"""

from __future__ import annotations

import importlib.util
import os
import re
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest
from triton_features import needs_host_tma
from golden_option import DATA

from ttinspect.engine import tools
from ttinspect.engine.builds import build, build_jit
from ttinspect.facts.model import Fact
from ttinspect.facts.ptx import PtxView, ptx_facts
from ttinspect.facts.sass import SassView, access_bytes, sass_facts
from ttinspect.dialects.ptx import parse_ptx
from ttinspect.dialects.sass import parse_sass
from ttinspect.kernel.argument_types import TensorDesc

VERSIONS = ["triton-3.6.0", "triton-3.9.0"]
DEPBAR = {"naive": 2, "opt": 4}  # num_stages 3 / 4 on sm_80: wait_group (S - 2) x 2 loads
LDGSTS = {"naive": 4, "opt": 5}  # per thread per K step: naive A 2 + B 2, opt A 4 + B 1 (16 B each)
HGMMA = {"naive": ("HGMMA.64x64x16.F32", 2), "opt": ("HGMMA.64x32x16.F32", 4)}


def facts_of(text: str) -> dict[str, Fact]:
    return {f.key: f for f in sass_facts(SassView.of(parse_sass(text)))}


def values(text: str) -> dict:
    return {k: f.value for k, f in facts_of(text).items()}


def captured(version: str, name: str) -> str:
    path = DATA / version / name
    if not path.is_file():
        pytest.skip(f"{path} not captured")
    return path.read_text()


@lru_cache(maxsize=None)
def fresh(variant: str, arch: str, **overrides) -> dict[str, Fact]:
    return facts_of(build(variant, overrides or None, arch=arch).artifacts.text("sass"))


def _pipeline_kernels():
    spec = importlib.util.spec_from_file_location("pipeline_kernels", DATA / "pipeline_kernels.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@lru_cache(maxsize=None)
def tma(arch: str, stages: int = 3) -> dict[str, Fact]:
    args = dict(a_desc=TensorDesc("fp16", (128, 64)), b_desc=TensorDesc("fp16", (64, 128)),
                c_desc=TensorDesc("fp16", (128, 128)), K=4096)
    config = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=4, num_stages=stages)
    result = build_jit(_pipeline_kernels().tma_matmul_kernel, args, config, arch)
    return facts_of(result.artifacts.text("sass"))


# --- every fact is well formed -----------------------------------------------------------------

@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", ["naive-sm_80.sass", "opt-sm_90.sass", "opt-sm_100.sass",
                                  "naive-sm_90.cuobjdump"])
def test_facts_are_well_formed(version, name):
    facts = list(facts_of(captured(version, name)).values())
    keys = [f.key for f in facts]
    assert len(keys) == len(set(keys)) and all(k.startswith("sass_") for k in keys)
    for f in facts:
        assert f.known, f
        assert f.explanation and "\n" not in f.explanation
        assert f.source in ("sass", "sass main loop")
        f.as_dict(), f.display()


# --- Ampere: HMMA, LDGSTS, DEPBAR ---------------------------------------------------------------

@pytest.mark.parametrize("variant", ["naive", "opt"])
@pytest.mark.parametrize("version", VERSIONS)
def test_sm80_captured(version, variant):
    v = values(captured(version, f"{variant}-sm_80.sass"))
    assert v["sass_tensor_core_path"] == "HMMA"
    assert v["sass_loop_mma"] == (("HMMA.16816.F32", 16),) == v["sass_mma"]
    assert v["sass_loop_tensor_core_ops"] == 16
    assert v["sass_loop_depbar"] == (DEPBAR[variant],)
    assert v["sass_drain_depbar"] == (0,)
    # cp.async.cg of 16 bytes; Triton 3.9 adds an L2 prefetch hint (LDGSTS.E.BYPASS.LTC128B.128)
    assert v["sass_loop_ldgsts"] == (("BYPASS.16B", LDGSTS[variant]),)
    assert v["sass_loop_ldgdepbar"] == 2  # one commit group per pipelined load (A, B)
    assert v["sass_loop_ldsm"] == (("x4", 4), ("x4.T", 4))  # A plain, B transposed
    assert v["sass_loop_warpgroup_arrive"] == 0 and v["sass_loop_warpgroup_wait"] == ()
    assert v["sass_local_memory"] == () == v["sass_loop_local_memory"]
    assert v["sass_global_stores"] == (("16B", 4),) and v["sass_global_loads"] == ()
    # the loop's `@!PT LDS RZ, [RZ]` padding is not a shared load
    assert v["sass_loop_shared_memory_ops"] == ()
    assert 0 < v["sass_loop_instructions"] < v["sass_instructions"]


@pytest.mark.parametrize("variant", ["naive", "opt"])
def test_sm80_fresh(variant):
    v = {k: f.value for k, f in fresh(variant, "sm_80").items()}
    assert v["sass_loop_mma"] == (("HMMA.16816.F32", 16),)
    assert v["sass_loop_depbar"] == (DEPBAR[variant],)
    assert v["sass_loop_ldgsts"] == (("BYPASS.16B", LDGSTS[variant]),)
    assert v["sass_local_memory"] == ()


# --- Hopper: HGMMA, WARPGROUP ------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["naive", "opt"])
@pytest.mark.parametrize("version", VERSIONS)
def test_sm90_captured(version, variant):
    v = values(captured(version, f"{variant}-sm_90.sass"))
    shape, n = HGMMA[variant]
    assert v["sass_tensor_core_path"] == "HGMMA"
    assert v["sass_loop_mma"] == ((shape, n),) and v["sass_loop_tensor_core_ops"] == n
    assert v["sass_loop_warpgroup_arrive"] == 1  # wgmma.fence
    assert v["sass_loop_warpgroup_wait"] == (1,)  # wgmma.wait_group 1
    assert v["sass_loop_ldgsts"] == (("BYPASS.16B", LDGSTS[variant]),)
    assert v["sass_loop_ldsm"] == ()  # wgmma reads A and B from shared memory itself
    assert v["sass_local_memory"] == ()


@pytest.mark.parametrize("variant", ["naive", "opt"])
def test_sm90_fresh(variant):
    v = {k: f.value for k, f in fresh(variant, "sm_90").items()}
    shape, n = HGMMA[variant]
    assert v["sass_loop_mma"] == ((shape, n),)
    assert v["sass_loop_warpgroup_wait"] == (1,)
    assert v["sass_local_memory"] == ()


@pytest.mark.parametrize("version", VERSIONS)
def test_cuobjdump_matches_nvdisasm(version):
    """The same cubin disassembled both ways gives the same facts."""
    assert values(captured(version, "naive-sm_90.cuobjdump")) == values(captured(version, "naive-sm_90.sass"))


def test_cuobjdump_matches_nvdisasm_fresh():
    cubin = build("naive", arch="sm_90").artifacts.data("cubin")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.cubin")
        Path(path).write_bytes(cubin)
        nvdisasm = tools.run_tool("nvdisasm", ["-c", "-g", path])
        cuobjdump = tools.run_tool("cuobjdump", ["-sass", path])
    assert parse_sass(cuobjdump).format == "cuobjdump" and parse_sass(nvdisasm).format == "nvdisasm"
    assert values(cuobjdump) == values(nvdisasm)


# --- Blackwell: UTCHMMA, trap helpers ----------------------------------------------------------

@pytest.mark.parametrize("variant", ["naive", "opt"])
@pytest.mark.parametrize("version", VERSIONS)
def test_sm100_captured(version, variant):
    text = captured(version, f"{variant}-sm_100.sass")
    module = parse_sass(text)
    assert any(f.name.startswith("$__internal") for f in module.functions)
    view = SassView.of(module)
    assert view.function == module.functions[0].name and not view.function.startswith("$")
    v = values(text)
    # tcgen05.mma: the shape is in the instruction descriptor (idesc[URx]), not in the mnemonic
    assert v["sass_tensor_core_path"] == "UTCHMMA"
    assert v["sass_loop_mma"] == (("UTCHMMA", 2),)  # BLOCK_K 32 / K 16 per MMA
    assert dict(v["sass_loop_tcgen05_ops"]) == {"UTCBAR": 1}  # tcgen05.commit each iteration
    assert {"LDTM", "STTM", "UTCBAR"} <= set(dict(v["sass_tcgen05_ops"]))
    assert dict(v["sass_loop_mbarrier_ops"]) == {"PHASECHK.TRANS64.TRYWAIT": 2}
    assert v["sass_loop_ldgsts"] == (("BYPASS.16B", LDGSTS[variant]),)
    assert v["sass_loop_depbar"] == (DEPBAR[variant],)


def test_sm100_fresh():
    v = {k: f.value for k, f in fresh("opt", "sm_100").items()}
    assert v["sass_tensor_core_path"] == "UTCHMMA" and v["sass_loop_mma"] == (("UTCHMMA", 2),)
    assert v["sass_local_memory"] == ()


# --- SASS agrees with the PTX where the two are one-to-one ---------------------------------------

@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", ["naive-sm_80", "opt-sm_80", "naive-sm_90", "opt-sm_90", "naive-sm_100",
                                  "opt-sm_100"])
def test_agrees_with_ptx(version, name):
    s = values(captured(version, f"{name}.sass"))
    p = {f.key: f.value for f in ptx_facts(PtxView.of(parse_ptx(captured(version, f"{name}.ptx"))))}
    assert s["sass_loop_tensor_core_ops"] == p["loop_tensor_core_ops"]
    assert s["sass_loop_depbar"] == p["loop_wait_group"]
    assert s["sass_drain_depbar"] == p["drain_wait_group"]
    assert s["sass_loop_ldgdepbar"] == p["loop_commit_groups"]
    assert s["sass_ldgdepbar"] == p["commit_groups"]
    assert sum(n for _, n in s["sass_loop_ldgsts"]) == sum(n for _, n in p["loop_cp_async"])
    assert s["sass_loop_bar_sync"] == p["loop_bar_sync"]
    assert [n for _, n in s["sass_loop_ldsm"]] == [n for _, n in p["loop_ldmatrix"]]
    assert s["sass_loop_warpgroup_wait"] == p["loop_wgmma_wait"]


# --- TMA ----------------------------------------------------------------------------------------

@needs_host_tma
def test_tma_sm90():
    v = {k: f.value for k, f in tma("sm_90").items()}
    assert v["sass_tensor_core_path"] == "HGMMA"
    assert v["sass_loop_mma"] == (("HGMMA.64x128x16.F32", 8),)  # 128 rows = 2 x m64, BLOCK_K 64 = 4 x k16
    assert v["sass_loop_tma"] == (("UTMALDG.2D", 2),)  # A and B tiles
    tma_ops = dict(v["sass_tma"])
    assert tma_ops["UTMALDG.2D"] == 6 and tma_ops["UTMASTG.2D"] == 1  # 3 stages x 2 loads; one store
    mbar = dict(v["sass_mbarrier_ops"])
    assert mbar["EXCH.64"] == 3 == mbar["CCTL.IV"]  # mbarrier.init / inval: one per stage
    assert dict(v["sass_loop_mbarrier_ops"])["ARRIVE.TRANS64"] == 1  # arrive.expect_tx
    assert v["sass_ldgsts"] == () and v["sass_loop_depbar"] == ()
    assert v["sass_drain_depbar"] == (0,)  # cp.async.bulk.wait_group 0 after the TMA store


@needs_host_tma
def test_tma_sm100():
    v = {k: f.value for k, f in tma("sm_100").items()}
    assert v["sass_tensor_core_path"] == "UTCHMMA"
    assert v["sass_loop_mma"] == (("UTCHMMA", 4),)
    assert v["sass_loop_tma"] == (("UTMALDG.2D", 2),)
    assert dict(v["sass_loop_tcgen05_ops"]) == {"UTCBAR": 1}


# --- local memory ------------------------------------------------------------------------------

def test_spills_show_as_local_memory():
    """opt with a 256x128 fp32 accumulator and 4 warps: 256 accumulator registers per thread alone,
    over the 255-register limit, so ptxas spills."""
    result = build("opt", {"BLOCK_SIZE_M": 256, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "num_warps": 4},
                   arch="sm_90")
    v = values(result.artifacts.text("sass"))
    local = dict(v["sass_local_memory"])
    assert local.get("STL.4B", 0) + local.get("STL.8B", 0) > 0
    assert any(k.startswith("LDL.") for k in local)
    assert v["sass_loop_local_memory"], "the spills are inside the main loop"
    # spills live in the stack frame (cuobjdump: STACK > 0, LOCAL:0) ...
    stack = re.search(r"STACK:(\d+)", result.artifacts.resource_usage())
    assert stack and int(stack[1]) > 0
    # ... and ptxas's spill byte counts are the STL / LDL instructions times their widths
    log = result.artifacts.extra("ptxas_log")
    if log:
        spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", log)
        assert spill, log
        stored = sum(int(k.split(".")[1][:-1]) * n for k, n in local.items() if k.startswith("STL"))
        loaded = sum(int(k.split(".")[1][:-1]) * n for k, n in local.items() if k.startswith("LDL"))
        assert (stored, loaded) == (int(spill[1]), int(spill[2]))


def test_access_bytes():
    ins = parse_sass("""
        .type k,@function
k:
        /*0000*/ STL.64 [R1+0x8], R2 ;
        /*0010*/ LDL.LU.128 R4, [R1] ;
        /*0020*/ LDL.S16 R8, [R1+0x10] ;
        /*0030*/ LDG.E.U8 R9, desc[UR4][R2.64] ;
        /*0040*/ STG.E desc[UR4][R2.64], R9 ;
        /*0050*/ EXIT ;
""").kernel.instructions
    assert [access_bytes(i) for i in ins[:5]] == [8, 16, 2, 1, 4]


# --- no loop, odd inputs -----------------------------------------------------------------------

def test_no_loop_gives_not_applicable():
    facts = fresh("add", "sm_90")
    loop_keys = [k for k, f in facts.items() if f.source == "sass main loop"]
    assert "sass_loop_mma" in loop_keys and "sass_loop_instructions" in loop_keys
    for key in loop_keys:
        assert facts[key].value is None and facts[key].unknown.startswith("not applicable"), key
        assert facts[key].display().startswith("n/a")
    assert facts["sass_tensor_core_path"].value == "none"
    assert facts["sass_mma"].value == ()
    assert dict(facts["sass_global_loads"].value) and dict(facts["sass_global_stores"].value)
    assert facts["sass_instructions"].value > 0


def test_empty_module():
    facts = facts_of("")
    assert all(f.value is None for f in facts.values())


def test_other_tensor_core_forms():
    """fp8 on Hopper is QGMMA, fp8 on Blackwell UTCQMMA (seen in real ptxas output); never-executed
    @!PT instructions are not counted."""
    text = """
        .type k,@function
k:
        /*0000*/ QGMMA.64x64x32.F32.E4M3.E4M3 R56, gdesc[UR12], R56, gsb0 ;
        /*0010*/ UTCQMMA gdesc[UR6], gdesc[UR8], tmem[UR21], tmem[UR24], idesc[UR25], !UPT ;
        /*0020*/ @!PT HMMA.16816.F32 R0, R4, R8, R0 ;
        /*0030*/ EXIT ;
"""
    v = values(text)
    assert v["sass_tensor_core_path"] == "QGMMA+UTCQMMA"
    assert v["sass_mma"] == (("QGMMA.64x64x32.F32.E4M3.E4M3", 1), ("UTCQMMA", 1))
    assert v["sass_instructions"] == 4

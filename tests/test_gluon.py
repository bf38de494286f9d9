"""Gluon kernels (`@gluon.jit`, Triton 3.4+) inspected like any other: compiled through Gluon's own source
class from the TritonGPU IR their author wrote (stages glir, ttgir, llir, ptx, sass — no TTIR), the facts
only Gluon states (the layouts written, conversions in loops, the ring of buffers and mbarriers), the rules
for them (TTI008, TTI009), a diff against the Triton kernel they replace, and Triton's own Triton→Gluon
translator. The kernels are tests/data/gluon/'s: a copy, a pipelined Hopper wgmma matmul (and a variant that
converts a layout in its loop), a Blackwell tcgen05 + TMEM matmul, two warp-specialized ones."""

from __future__ import annotations

import json

import pytest

triton = pytest.importorskip("triton")
pytest.importorskip("triton.experimental.gluon._runtime", reason="this Triton has no Gluon")

from cli_helpers import assert_one_line_error, run_cli, run_cli_ok  # noqa: E402
from gluon_cases import GLUON, Case, cases, load  # noqa: E402
from golden_option import check_golden  # noqa: E402
from triton_features import TRITON  # noqa: E402
from ttinspect.errors import EXIT_USAGE  # noqa: E402
from ttinspect.kernel.overrides import parse_settings  # noqa: E402
from ttinspect.refs.resolver import RefOptions, resolve_one  # noqa: E402

CASES = cases()
RELEASE = ".".join(map(str, TRITON))  # 3.9: the goldens of one minor release
BY_ID = {case.id: case for case in CASES}
HOPPER = BY_ID["hopper_matmul:matmul_kernel@sm_90"]
CONVERT = BY_ID["hopper_matmul:matmul_kernel_convert@sm_90"]


def build(case: Case, **constexprs):
    return resolve_one(case.ref, RefOptions(parse_settings(case.settings()), {}, case.signature(**constexprs), None,
                                            case.arch))


def report_json(case: Case, *extra: str) -> dict:
    return json.loads(run_cli_ok("report", case.ref, "--signature", case.signature(), "--arch", case.arch,
                                 *[a for s in case.settings() for a in ("--set", s)], *extra, "--json"))


def facts(data: dict) -> dict:
    return {key: fact["value"] for key, fact in data["facts"].items()}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_compiled_as_triton_compiles_it(case):
    """ttinspect's compile of the reference is Triton's own compile through GluonASTSource, byte for byte."""
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    fn = getattr(load(case.file), case.kernel)
    src = GluonASTSource(fn, case.entry["signature"], case.entry["constexprs"], case.entry.get("attrs", {}))
    direct = triton.compile(src, target=GPUTarget(*case.gpu_target), options=case.entry["options"])
    built = build(case)
    asm = "amdgcn" if case.arch.startswith("gfx") else "ptx"
    assert built.artifacts.text(asm) == direct.asm[asm]
    assert built.artifacts.text("glir").startswith("#") and "ttg." in built.artifacts.text("glir")
    assert not built.artifacts.has("ttir")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_facts_golden_per_release(case, request):
    """What a Gluon kernel's report says, pinned per release (pytest --update-golden rewrites)."""
    data = facts(report_json(case))
    keys = ("gluon_layouts", "convert_layouts", "convert_layouts_in_loop", "ring_depth", "mbarriers",
            "barrier_waits_in_loop", "tensor_core_path", "pipeline_depth", "warp_specialized", "tma_copies",
            "registers", "spills", "shared_memory", "ttir_loops")
    check_golden(request.config, f"gluon/{RELEASE}/{case.file}-{case.kernel}-{case.arch}",
                 {key: data.get(key) for key in keys})


def test_the_ring_and_the_tensor_core_path_are_read_from_what_the_code_allocates():
    hopper, blackwell = facts(report_json(HOPPER)), facts(report_json(BY_ID["blackwell_matmul:matmul_kernel@sm_100"]))
    assert hopper["ring_depth"] == blackwell["ring_depth"] == 3 and hopper["mbarriers"] == 3
    assert hopper["tensor_core_path"] == "wgmma" and blackwell["tensor_core_path"] == "tcgen05"
    assert "tensor_memory_encoding" in dict(blackwell["gluon_layouts"]) and hopper["convert_layouts_in_loop"] == 0
    copy = facts(report_json(BY_ID["gluon_copy:copy_kernel@sm_90"]))
    assert copy["ring_depth"] is None and dict(copy["gluon_layouts"]) == {"blocked": 1}
    ws = facts(report_json(BY_ID["warp_specialized:matmul_ws_kernel@sm_100"]))
    assert str(ws["warp_specialized"]).startswith("yes: 3 partitions")


def test_list_shows_the_kind_and_the_stages_are_the_gluon_kernels_own():
    listing = json.loads(run_cli_ok("list", str(GLUON / "hopper_matmul.py"), "--json"))
    kinds = {k["name"]: k["kind"] for k in listing["kernels"]}
    assert kinds["matmul_kernel"] == kinds["matmul_kernel_convert"] == kinds["_issue_loads"] == "gluon"
    args = [HOPPER.ref, "--signature", HOPPER.signature(), "--arch", "sm_90"]
    assert_one_line_error(run_cli("dump", *args, "--stage", "ttir"), EXIT_USAGE, "a Gluon kernel has no TTIR",
                          "glir, ttgir, llir, ptx")
    glir = run_cli_ok("dump", *args, "--stage", "glir")
    assert "ttg.local_alloc" in glir and "#ttg.nvmma_shared" in glir
    assert_one_line_error(run_cli("dump", "naive", "--stage", "glir"), EXIT_USAGE, "a Triton kernel has no GLIR")


def test_a_descriptor_without_a_layout_gets_the_one_gluon_s_tutorials_pass():
    bare = HOPPER.signature().replace(",NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2, "
                                      "transposed=False, fp4_padded=False, cga_layout=[])", "")
    assert "NVMMA" not in bare
    given = resolve_one(HOPPER.ref, RefOptions({}, {}, bare, None, "sm_90"))
    assert given.artifacts.text("ptx") == build(HOPPER).artifacts.text("ptx")


def test_check_finds_a_conversion_in_the_main_loop_and_a_serialized_ring():
    args = ["--arch", "sm_90", "--json"]
    found = json.loads(run_cli_ok("check", CONVERT.ref, "--signature", CONVERT.signature(), *args))["findings"]
    convert = next(f for f in found if f["id"] == "TTI008")
    assert convert["severity"] == "warning" and "through shared memory" in convert["title"]
    assert "ttg.convert_layout" in convert["evidence"][0]["text"] and convert["evidence"][0]["python_line"]
    assert {"st.shared", "bar.sync"} <= {part.split("×")[0] for part in
                                         convert["evidence"][-1]["text"].split(": ")[1].split(", ")}
    fixed = json.loads(run_cli_ok("check", CONVERT.ref, "--signature", CONVERT.signature(), "--set", "CONVERT=false",
                                  *args))["findings"]
    assert "TTI008" not in {f["id"] for f in fixed}  # the fix: A loaded straight into the wgmma operand layout
    clean = json.loads(run_cli_ok("check", HOPPER.ref, "--signature", HOPPER.signature(), *args))["findings"]
    assert not {"TTI008", "TTI009", "TTI001"} & {f["id"] for f in clean}
    serial = BY_ID["serialized_ring:matmul_single_buffer@sm_90"]
    one = json.loads(run_cli_ok("check", serial.ref, "--signature", serial.signature(), *args))
    ring = next(f for f in one["findings"] if f["id"] == "TTI009")
    assert "ring of 1 buffer" in ring["title"] and "NUM_BUFFERS" in ring["fix"]


TRITON_MATMUL = '''
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16))
'''
MATMUL_SIGNATURE = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32"


def test_translate_then_inspect_and_diff_against_the_triton_kernel(tmp_path):
    (tmp_path / "mm.py").write_text(TRITON_MATMUL)
    out = tmp_path / "mm_gluon.py"
    arch = "sm_90" if TRITON >= (3, 9) else "sm_100"  # 3.6's translator writes Blackwell code only
    result = run_cli("translate", f"{tmp_path / 'mm.py'}:matmul_kernel", "--arch", arch, "-o", str(out))
    if TRITON < (3, 6):
        assert_one_line_error(result, EXIT_USAGE, "ships no Triton→Gluon translator")
        return
    assert result.exit_code == 0, result.output
    if TRITON < (3, 9):
        assert_one_line_error(run_cli("translate", f"{tmp_path / 'mm.py'}:matmul_kernel", "--arch", "sm_90"),
                              EXIT_USAGE, "writes Blackwell kernels", "--arch sm_100")
    assert "@gluon.jit" in out.read_text() and "def matmul_kernel(" in out.read_text()
    assert_one_line_error(run_cli("translate", f"{tmp_path / 'mm.py'}:matmul_kernel", "--arch", arch, "-o",
                                  str(out)), EXIT_USAGE, "exists")  # nothing the user had is replaced
    listing = json.loads(run_cli_ok("list", str(out), "--json"))
    assert {k["name"]: k["kind"] for k in listing["kernels"]}["matmul_kernel"] == "gluon"
    diff = json.loads(run_cli_ok("diff", f"{tmp_path / 'mm.py'}:matmul_kernel", f"{out}:matmul_kernel", "--arch",
                                 arch, "--signature", MATMUL_SIGNATURE, "--json"))
    assert diff["facts"]["pipeline_depth"]["changed"]  # Triton pipelined the loop (num_stages=3); the translation not
    assert "nvmma_shared" in diff["one_side"]["b"]["gluon_layouts"]  # only the Gluon kernel states its layouts
    assert diff["one_side"]["a"]["program_order"] == "2-D grid"  # read from TTIR: the Triton kernel's only
    assert "program_order" not in {c["key"] for c in diff["changes"]}  # not a change: Gluon has no TTIR
    assert_one_line_error(run_cli("translate", f"{out}:matmul_kernel", "--arch", arch), EXIT_USAGE,
                          "already a Gluon kernel")


def test_on_the_h100_the_launch_was_the_offline_compile_and_the_fixes_were_faster():
    """scripts/device_gluon.py on the H100 (Triton 3.6.0; tests/data/gluon/gluon_h100.json): every sm_90 kernel
    launched with Gluon's own descriptors computed A @ B, its PTX was ttinspect's offline compile byte for byte,
    its registers and spills too; TTI008's fix (CONVERT=False) and a ring of 3 against TTI009's ring of 1,
    timed (the second of two rounds)."""
    data = json.loads((GLUON / "gluon_h100.json").read_text())
    rows = {row["case"]: row for row in data["rows"]}
    assert data["device"] == "NVIDIA H100 80GB HBM3" and len(rows) == 6
    assert all(r["ptx_equal"] and r["n_regs"] == r["offline_registers"] and r["n_spills"] == r["offline_spills"] == 0
               for r in rows.values())
    assert all(r["max_abs_error"] < 0.25 for r in rows.values())
    convert, fixed = rows["hopper_matmul:matmul_kernel_convert@sm_90"], rows[
        "hopper_matmul:matmul_kernel_convert@sm_90:CONVERT=False"]
    ring, single = rows["hopper_matmul:matmul_kernel@sm_90"], rows["serialized_ring:matmul_single_buffer@sm_90"]
    assert fixed["ms"] < convert["ms"] and ring["ms"] < single["ms"]


AUTOTUNED = '''
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@triton.autotune(configs=[triton.Config({"BLOCK": 512}), triton.Config({"BLOCK": 1024})], key=["n"])
@gluon.jit
def copy_kernel(in_ptr, out_ptr, n, BLOCK: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout(size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0])
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    gl.store(out_ptr + offs, gl.load(in_ptr + offs, mask=offs < n), mask=offs < n)
'''


def test_an_autotuned_gluon_kernel_from_its_file_and_as_a_python_object(tmp_path):
    import importlib.util

    from ttinspect import inspect

    path = tmp_path / "tuned_copy.py"
    path.write_text(AUTOTUNED)
    listing = json.loads(run_cli_ok("list", str(path), "--json"))
    assert {k["name"]: k["kind"] for k in listing["kernels"]}["copy_kernel"] == "autotune, gluon"
    table = json.loads(run_cli_ok("report", f"{path}:copy_kernel", "--signature", "*fp32:16, *fp32:16, i32:16",
                                  "--arch", "sm_90", "--config", "all", "--json"))
    assert [r["config"]["BLOCK"] for r in table] == [512, 1024]
    spec = importlib.util.spec_from_file_location("tuned_copy", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    report = inspect(module.copy_kernel, signature="*fp32:16, *fp32:16, i32:16", arch="sm_90", config=2)
    assert dict(next(f.value for f in report.facts if f.key == "gluon_layouts")) == {"blocked": 1}
    assert report.config["BLOCK"] == 1024


CAPTURED = GLUON / "capture_h100"


def test_a_gluon_program_captured_on_the_h100_checks_here_from_its_captured_text():
    """scripts/device_gluon_capture.sh: the sm_90 kernels launched under `ttinspect capture` on the H100 (Triton
    3.6.0); there, each compile's offline PTX was the run's Triton cache entry's (6 of 6). Here, from the text the
    capture kept, the same findings: TTI008 on the converting compile, TTI009 on the ring of one."""
    there = json.loads((CAPTURED / "gluon.check.json").read_text())
    assert [row["ptx_vs_run"] for row in there["compiles"]] == ["same"] * 6
    checked = run_cli("check", str(CAPTURED / "gluon.ttcap"), "--source", "captured", "--json")
    assert checked.exit_code == 0, checked.output
    # stderr may say the run's Triton release is not this machine's (refs/triton_release.py): stdout is the JSON
    here = json.loads(checked.stdout)
    found = {row["ref"].rsplit(":", 1)[1]: {f["id"] for f in row["findings"]} for row in here["compiles"]}
    assert found == {row["ref"].rsplit(":", 1)[1]: {f["id"] for f in row["findings"]} for row in there["compiles"]}
    assert "TTI009" in found["matmul_single_buffer"] and found["matmul_kernel_convert#1"] == {"TTI008"}
    assert found["matmul_kernel"] == found["matmul_kernel_convert#2"] == set()  # the ring, and TTI008's fix


SINGLE_TILE_TTGIR = '''#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @k(%a_desc: !tt.tensordesc<128x64xf16, #shared>, %n: i32) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %true = arith.constant true
    %a = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    %data = ttg.local_alloc : () -> !ttg.memdesc<64x64xi64, #shared1, #smem, mutable>
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    scf.for %k = %c0_i32 to %n step %c1_i32  : i32 {
      ttng.async_tma_copy_global_to_local %a_desc[%c0_i32, %k] %a, %bar, %true : TMA_TYPES
      ttng.wait_barrier %bar, %c0_i32, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    }
    tt.return
  }
}
'''


SINGLE_TILE_TTGIR = SINGLE_TILE_TTGIR.replace("TMA_TYPES", "!tt.tensordesc<128x64xf16, #shared>, !ttg.memdesc<1xi64, "
                                              "#shared1, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, "
                                              "mutable>")


def test_the_ring_is_where_the_copies_land_and_barriers_are_what_is_initialized():
    """A single 2-D tile that TMA loads into is a ring of one (TTI009's case written the natural way); a 64-bit
    data tile is no barrier: only what mbarrier.init initializes counts."""
    from ttinspect.dialects.mlir import parse_mlir
    from ttinspect.facts.gluon import gluon_facts

    module = parse_mlir(SINGLE_TILE_TTGIR, stage="ttgir")
    got = {f.key: f.value for f in gluon_facts(module, module)}
    assert got["ring_depth"] == 1 and got["mbarriers"] == 1 and got["barrier_waits_in_loop"] == 1
    no_copy = parse_mlir(SINGLE_TILE_TTGIR.replace("ttng.async_tma_copy_global_to_local", "ttng.other_op"))
    ring = next(f for f in gluon_facts(no_copy, no_copy) if f.key == "ring_depth")
    assert ring.value is None and ring.unknown.startswith("not applicable")


def test_an_amd_gluon_kernel_has_its_own_stages_and_facts():
    amd = BY_ID["amd_copy:copy_kernel@gfx950"]
    args = [amd.ref, "--signature", amd.signature(), "--arch", "gfx950"]
    assert_one_line_error(run_cli("dump", *args, "--stage", "ttir"), EXIT_USAGE, "a Gluon kernel has no TTIR",
                          "glir, ttgir, llir, amdgcn")
    assert "threadsPerWarp = [64]" in run_cli_ok("dump", *args, "--stage", "glir")
    data = facts(report_json(amd))
    assert dict(data["gluon_layouts"]) == {"blocked": 1} and data["ring_depth"] is None

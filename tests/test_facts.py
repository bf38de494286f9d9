"""Facts: what `inspect`/`diff` read out of compiled kernels, checked against measured ground truth.

- the pipeline depth (num_stages) and the cp.async wait/commit pattern, swept over num_stages 1..6 on
  Ampere and Hopper for doc 003's two matmuls, a 3-load matmul and a TMA matmul
  (shared/notes/triton36-ptx-facts.md, triton-versions.md);
- doc 003's own numbers (§1.1, §2.2, §2.3, §3.2) on its GPU's target, sm_89;
- the tensor-core path per target; kernels without a dot or a loop;
- the shape of every fact of every shipped variant (explanation, group, value or reason, JSON);
- the main-loop text diff; facts on mutated PTX (hypothesis); golden files of the facts.

Compiles are served by the session's artifact cache (tests/conftest.py), so a kernel compiled by
another test file is not compiled again.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from triton_features import needs_host_tma
from golden_option import DATA, check_golden
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ttinspect.api import diff, inspect, report_from_build
from ttinspect.compare.facts_diff import loop_text_diff, normalize
from ttinspect.engine.builds import build_jit
from ttinspect.targets.releases import triton_version
from ttinspect.errors import ParseError
from ttinspect.compare.explain import tile_bytes
from ttinspect.facts.model import GROUPS, Counts, Fact
from ttinspect.facts.pipeline import pipeline_depth
from ttinspect.facts.ptx import PtxView, ptx_facts
from ttinspect.dialects.ptx import parse_ptx
from ttinspect.report.model import Report
from ttinspect.kernel.catalog import get_variant
from ttinspect.kernel.argument_types import Pointer, TensorDesc

VERSION = triton_version()
ON_36 = VERSION.startswith("3.6.")
STAGES = range(1, 7)
CAPTURED_36 = sorted((DATA / "triton-3.6.0").glob("*.ptx"))


def _why(report: Report) -> str:
    """What a failing assertion prints: every fact and the main loop's PTX."""
    return "\n" + report.summary()


def _depth_report(variant: str, arch: str, stages: int) -> Report:
    return inspect(variant, arch=arch, num_stages=stages)


# --- pipeline depth: doc 003's matmuls ---------------------------------------------------------

# shared/notes/triton36-ptx-facts.md, "num_stages → PTX": metadata.shared for num_stages 1..6.
SHARED_36 = {
    ("naive", "sm_80"): (8192, 8192, 16384, 24576, 32768, 40960),
    ("opt", "sm_80"): (10240, 10240, 20480, 30720, 40960, 51200),
    ("naive", "sm_90"): (8192, 16384, 24576, 32768, 40960, 49152),
    ("opt", "sm_90"): (10240, 20480, 30720, 40960, 51200, 61440),
}


def _buffers(arch: str, stages: int) -> int:
    """Shared buffers per operand (triton-versions.md): Ampere max(S-1, 1), Hopper S."""
    return max(stages - 1, 1) if arch == "sm_80" else stages


@pytest.mark.parametrize("stages", STAGES)
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("variant", ["naive", "opt"])
def test_depth_sweep_doc003(variant, arch, stages):
    r = _depth_report(variant, arch, stages)
    loads = 2  # A and B: one commit group each
    assert r.pipeline_depth == stages, _why(r)
    assert r["num_stages"] == stages
    if stages >= 2:
        assert r.wait_group == (loads * (stages - 2),), _why(r)
        assert r["loop_commit_groups"] == loads
        assert r["commit_groups"] == loads * stages  # prologue (S-1) × L + L in the loop
        assert r["drain_wait_group"] == (0,)
    else:  # not pipelined: plain loads in the loop, no asynchronous copies at all
        assert r.wait_group == () and r["loop_commit_groups"] == 0 and r["commit_groups"] == 0
        assert r["loop_cp_async"] == () and r["global_loads"], _why(r)
    # Hopper's cp.async path keeps one wgmma group in flight inside the loop (0 when not pipelined)
    assert r["loop_wgmma_wait"] == (() if arch == "sm_80" else (1,) if stages >= 2 else (0,))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("variant", ["naive", "opt"])
def test_shared_memory_follows_the_buffers(variant, arch):
    """Every Triton version: shared memory = the multi-buffered A/B tiles, and the buffer count per
    operand is max(S-1, 1) on Ampere, S on Hopper (the exact bytes: the next test, Triton 3.6 only)."""
    sizes = []
    for stages in STAGES:
        r = _depth_report(variant, arch, stages)
        buffers = r["shared_buffers"]
        if stages > 1:
            assert tile_bytes(buffers) == r.shared_memory, _why(r)
        else:  # one buffer: the epilogue's layout conversion may need more (Triton 3.3 on sm_90)
            assert tile_bytes(buffers) <= r.shared_memory, _why(r)
        if stages > 1:  # N×BM×BK; a single buffer (num_stages 1) is just BM×BK
            assert {b.split("x")[0] for b in buffers} == {str(_buffers(arch, stages))}, buffers
        sizes.append(r.shared_memory)
    per_stage = sizes[-1] // _buffers(arch, 6)
    assert sizes[1:] == [per_stage * _buffers(arch, s) for s in STAGES[1:]]


@pytest.mark.skipif(not ON_36, reason=f"the notes' shared-memory table was measured on Triton 3.6, "
                                      f"this is {VERSION}; the per-buffer pattern is checked above")
def test_shared_memory_table_is_triton_36():
    for (variant, arch), sizes in SHARED_36.items():
        assert tuple(_depth_report(variant, arch, s).shared_memory for s in STAGES) == sizes


# --- pipeline depth: kernels beyond the seeds ---------------------------------------------------

def _pipeline_kernels():
    spec = importlib.util.spec_from_file_location("pipeline_kernels", DATA / "pipeline_kernels.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PK = _pipeline_kernels()
N = 4096


def _three_load(arch: str, stages: int) -> Report:
    args = dict(a_ptr=Pointer("fp16"), b_ptr=Pointer("fp16"), s_ptr=Pointer("fp16"), c_ptr=Pointer("fp16"),
                M=N, N=N, K=N, stride_am=N, stride_ak=1, stride_bk=N, stride_bn=1, stride_cm=N, stride_cn=1)
    config = dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=32, num_warps=4, num_stages=stages)
    return report_from_build(build_jit(PK.three_load_kernel, args, config, arch))


def _tma(stages: int) -> Report:
    args = dict(a_desc=TensorDesc("fp16", (128, 64)), b_desc=TensorDesc("fp16", (64, 128)),
                c_desc=TensorDesc("fp16", (128, 128)), K=N)
    config = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=4, num_stages=stages)
    return report_from_build(build_jit(PK.tma_matmul_kernel, args, config, "sm_90"))


@pytest.mark.parametrize("stages", STAGES)
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_depth_sweep_three_loads(arch, stages):
    r = _three_load(arch, stages)
    assert r.pipeline_depth == stages, _why(r)
    if stages >= 2:
        assert r["loop_commit_groups"] == 3
        assert r.wait_group == (3 * (stages - 2),), _why(r)  # 0 / 3 / 6 / 9 / 12
    else:
        assert r.wait_group == () and r["loop_commit_groups"] == 0


@needs_host_tma
@pytest.mark.parametrize("stages", STAGES)
def test_depth_sweep_tma(stages):
    r = _tma(stages)
    assert r.pipeline_depth == stages, _why(r)
    assert r.tensor_core_path == "wgmma"
    assert r.wait_group == () and r["loop_commit_groups"] == 0  # TMA waits on mbarriers, not groups
    assert dict(r["tma_copies"]), _why(r)
    inits = dict(r["mbarrier_ops"])["init"]
    # one barrier per stage; not pipelined, the loop inits a barrier per load (A and B) itself
    assert inits == (stages if stages >= 2 else 2), _why(r)


# --- doc 003 on its GPU (RTX 4090, sm_89) -------------------------------------------------------

@pytest.fixture(scope="module")
def doc003():
    return diff("naive", "opt")


def test_doc003_table_1_1_and_3_2(doc003):
    a, b = doc003.a, doc003.b
    assert a.target == b.target == "sm_89"  # the default target is doc 003's GPU
    expected = {  # fact: (naive, opt), from doc 003 §1.1 / §2.2 / §2.3 / §3.2
        "shared_memory": (16384, 30720),
        "num_stages": (3, 4),
        "pipeline_depth": (3, 4),
        "loop_wait_group": ((2,), (4,)),
        "num_warps": (4, 4),
        "threads": (128, 128),
        "loop_tensor_core_ops": (16, 16),
        "loop_mma": ((("m16n8k16.row.col.f32.f16.f16.f32", 16),),) * 2,
        "tensor_core_path": ("mma.sync", "mma.sync"),
        "group_size_m": (None, 8),
        "program_order": ("2-D grid", "grouped"),
        "address_modulo": (0, 2),
        "load_mask_terms": ((2, 2), (1, 1)),
        # §3.2 "每次预取批次": opt 5 = A×4 + B×1 (16-byte cp.async.cg per thread) as the doc says;
        # naive issues 4 (A×2 + B×2: its 32×64 B tile is as large as its 64×32 A tile), not "2 (A×2)"
        "loop_cp_async": ((("cg.16B", 4),), (("cg.16B", 5),)),
        "loop_ldmatrix": ((("x4", 4), ("x4.trans", 4)),) * 2,
    }
    actual = {key: (a[key], b[key]) for key in expected}
    assert actual == expected, _why(a) + _why(b)
    assert a.fact("group_size_m").unknown.startswith("not applicable")
    assert dict(b["rem_div"]).get("rem.s32", 0) >= 2  # the `% M`, `% N` of the modulo addressing


def test_doc003_changes_are_explained_correctly(doc003):
    changed = {c.key for c in doc003.changes}
    assert {"shared_memory", "num_stages", "pipeline_depth", "loop_wait_group", "group_size_m",
            "address_modulo", "load_mask_terms"} <= changed
    assert not {"loop_tensor_core_ops", "num_warps", "tensor_core_path", "loop_mma"} & changed

    wait = doc003.change("loop_wait_group").explanation
    assert "at most 4" in wait and "(was 2)" in wait  # the PTX semantics of wait_group N
    assert "does not wait for 4 groups" in wait  # and it says doc 003 §2.2 reads it wrong
    shared = doc003.change("shared_memory").explanation
    assert "16384" in shared and "30720" in shared
    assert "2x64x32xf16 + 2x32x64xf16 = 16384 B" in shared
    assert "3x128x32xf16 + 3x32x32xf16 = 30720 B" in shared
    depth = doc003.change("pipeline_depth").explanation
    assert depth.startswith("pipeline depth 3 → 4") and "loads 3 K steps ahead (was 2)" in depth
    assert "2 more steps' copies stay in flight" in depth  # = wait_group 4 / 2 groups per step
    group = doc003.change("group_size_m").explanation
    assert group.startswith("GROUP_SIZE_M 8") and "L2" in group
    assert "2 `%`" in doc003.change("address_modulo").explanation
    assert "2, 2 → 1, 1" in doc003.change("load_mask_terms").explanation
    json.dumps(doc003.as_dict())


def test_doc003_diff_without_changes():
    same = diff("naive", "naive")
    # one loop: its own facts repeat the kernel's, so a diff leaves them out
    kernel_facts = [f for f in same.a.facts if not f.group.startswith("loop ")]
    assert same.changes == () and len(same.rows) == len(kernel_facts) < len(same.a.facts)


# --- tensor-core path per target ----------------------------------------------------------------

PATH = {"sm_80": "mma.sync", "sm_86": "mma.sync", "sm_89": "mma.sync", "sm_90": "wgmma",
        "sm_100": "tcgen05", "sm_120": "mma.sync"}
LOOP_KEY = {"mma.sync": "loop_mma", "wgmma": "loop_wgmma", "tcgen05": "loop_tcgen05_mma"}


@pytest.mark.parametrize("arch", list(PATH))
@pytest.mark.parametrize("variant", ["naive", "opt"])
def test_tensor_core_path_per_target(variant, arch):
    r = inspect(variant, arch=arch)
    path = PATH[arch]
    assert r.tensor_core_path == path, _why(r)
    ops = r.tensor_core_ops_per_iteration
    assert ops and ops > 0
    for other, key in LOOP_KEY.items():  # only the path's own instructions are in the loop
        value = r[key]
        count = value if isinstance(value, int) else sum(n for _, n in value)
        assert (count == ops) if other == path else (count == 0), (key, value, _why(r))
    if path == "mma.sync":
        assert ops == 16 and r["mma_version"] == ("2",)  # m16n8k16 on both tile shapes, 4 warps
    if path == "wgmma":
        assert r["mma_version"] == ("3",)
    assert r.pipeline_depth == r["num_stages"], _why(r)


def test_wgmma_per_iteration_on_hopper():
    """One warpgroup (4 warps) covers the tile in m64 × BLOCK_N × k16 steps: naive 64×64×32 is
    1 × 2 m64n64k16, opt 128×32×32 is 2 (M) × 2 (K) m64n32k16."""
    naive, opt = inspect("naive", arch="sm_90"), inspect("opt", arch="sm_90")
    assert naive["loop_wgmma"] == (("m64n64k16.f32.f16.f16", 2),), _why(naive)
    assert opt["loop_wgmma"] == (("m64n32k16.f32.f16.f16", 4),), _why(opt)
    assert (naive.tensor_core_ops_per_iteration, opt.tensor_core_ops_per_iteration) == (2, 4)


# --- kernels with no dot or no loop -------------------------------------------------------------

@pytest.mark.parametrize("arch", ["sm_89", "sm_90"])
def test_no_loop_kernel(arch):
    r = inspect("add", arch=arch)
    depth = r.fact("pipeline_depth")
    assert r.pipeline_depth is None and depth.unknown and "no loop" in depth.unknown, _why(r)
    for fact in r.facts:
        if fact.key.startswith("loop_"):
            assert fact.value is None and fact.unknown.startswith("not applicable"), fact
    assert r.tensor_core_path == "none" and r.group_size_m is None
    assert r["load_mask_terms"] is None and r.fact("load_mask_terms").unknown.startswith("not applicable")
    assert r["ttir_loops"] == 0 and r["ttir_dots"] == 0
    assert dict(r["global_loads"]) and r["predicated_global_access"] > 0  # the masked loads


@pytest.mark.parametrize("arch", ["sm_89", "sm_90"])
def test_loop_without_dot(arch):
    """softmax: a loop over rows (`tl.range(..., num_stages=4)`) and no dot. The tensor-core facts are
    empty or not applicable; the row loop really is pipelined (one cp.async group per row,
    wait_group 2 = 1 × (4 − 2)), so its depth is known."""
    r = inspect("softmax", arch=arch)
    assert r.tensor_core_path == "none" and r.tensor_core_ops_per_iteration == 0
    assert r["loop_mma"] == () and r["loop_wgmma"] == () and r["loop_tcgen05_mma"] == 0
    assert r["load_mask_terms"] is None and "no loop holds a dot" in r.fact("load_mask_terms").unknown
    assert r["mma_version"] is None and r.fact("mma_version").unknown
    assert r["ttir_dots"] == 0 and r["ttir_loops"] == 1
    assert r["loop_commit_groups"] == 1 and r.wait_group == (2,)
    assert r.pipeline_depth == r["num_stages"] == 4, _why(r)


# --- every fact of every shipped variant --------------------------------------------------------

VARIANTS = ["naive", "opt", "square", "tutorial", "add", "softmax", "tileon", "l2_g0", "l2_g8"]
ORDER = {"naive": "2-D grid", "opt": "grouped", "tutorial": "grouped", "l2_g8": "grouped",
         "l2_g0": "1-D row-major", "tileon": "1-D column-major", "square": "2-D grid"}


def _json_native(value) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_native(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_native(v) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


@pytest.mark.parametrize("arch", ["sm_89", "sm_90"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_fact_is_well_formed(variant, arch):
    r = inspect(variant, arch=arch)
    keys = [f.key for f in r.facts]
    assert len(keys) == len(set(keys)), "duplicate fact keys"
    for fact in r.facts:
        assert isinstance(fact, Fact)
        assert fact.explanation.strip(), fact.key
        assert fact.title.strip() and fact.source.strip(), fact.key
        assert fact.group in GROUPS or (fact.group.startswith("loop ") and fact.key.startswith("loop")), fact
        assert fact.value is not None or (fact.unknown and fact.unknown.strip()), fact
        assert fact.display()
    loops = list(dict.fromkeys(f.group for f in r.facts if f.group not in GROUPS))  # then a group per loop
    assert [g for g, _ in r.by_group()] == [g for g in GROUPS if any(f.group == g for f in r.facts)] + loops
    data = r.as_dict()
    assert _json_native(data), "as_dict() holds non-JSON values"
    in_json = dict(data["facts"])  # the kernel's facts, and each loop's under `loops`
    for loop in data["loops"]:
        in_json.update({f"loop{loop['index']}.{name}": fact for name, fact in loop["facts"].items()})
    for fact in r.facts:  # a multiset is a JSON object, an empty one too
        if isinstance(fact.value, Counts):
            assert isinstance(in_json[fact.key]["value"], dict), fact
    assert json.loads(json.dumps(data)) == data
    assert set(in_json) == set(keys)
    if variant in ORDER:
        assert r["program_order"] == ORDER[variant], _why(r)
    if r["program_order"] == "grouped":
        assert r.group_size_m == get_variant(variant).config["GROUP_SIZE_M"]
    else:
        assert r.group_size_m is None and r.fact("group_size_m").unknown


def test_group_sizes_from_the_registry():
    assert get_variant("tutorial").config["GROUP_SIZE_M"] == 4  # seed 001's first autotune config
    assert inspect("tutorial").group_size_m == 4
    assert inspect("opt").group_size_m == inspect("l2_g8").group_size_m == 8


# --- main-loop text diff ------------------------------------------------------------------------

def _loop_text(path: Path) -> str:
    text = path.read_text()
    main = parse_ptx(text).main_loop
    return "\n".join(text.split("\n")[main.start_line - 1:main.end_line])


def _renumber(text: str) -> str:
    """Registers and labels renamed one-to-one (what a recompile with other numbering does)."""
    text = re.sub(r"%(r|rd|f|p|rs)(\d+)\b", lambda m: f"%{m[1]}{int(m[2]) * 3 + 1000}", text)
    text = re.sub(r"\$L__BB0_(\d+)", lambda m: f"$L__BB0_{int(m[1]) + 40}", text)
    return re.sub(r"\$L__tmp(\d+)", lambda m: f"$L__tmp{int(m[1]) + 7}", text)


@pytest.mark.parametrize("name", ["naive-sm_80.ptx", "opt-sm_90.ptx", "naive-sm_100.ptx"])
def test_normalize_ignores_numbering(name):
    path = DATA / "triton-3.6.0" / name
    loop = _loop_text(path)
    other = _renumber(loop)
    assert other != loop
    assert normalize("ptx", loop) == normalize("ptx", other)
    assert loop_text_diff("ptx", loop, other, "a", "b") == ""
    # comments and .loc lines do not count either
    assert normalize("ptx", loop) == normalize("ptx", re.sub(r"\.loc\s+\d+ \d+ \d+", ".loc 9 9 9", loop))


def test_loop_text_diff_shows_a_real_change():
    loop = _loop_text(DATA / "triton-3.6.0" / "naive-sm_80.ptx")
    assert "cp.async.wait_group \t2;" in loop
    changed = _renumber(loop).replace("cp.async.wait_group \t2;", "cp.async.wait_group \t4;")
    text = loop_text_diff("ptx", loop, changed, "naive", "changed")
    removed = [line for line in text.split("\n") if line.startswith("-") and not line.startswith("---")]
    added = [line for line in text.split("\n") if line.startswith("+") and not line.startswith("+++")]
    assert removed == ["-\tcp.async.wait_group \t2;"] and added == ["+\tcp.async.wait_group \t4;"], text


def test_loop_text_diff_of_doc003(doc003):
    text = loop_text_diff("ptx", doc003.a.main_loop_ptx, doc003.b.main_loop_ptx, "naive", "opt")
    assert re.search(r"^-\s*cp\.async\.wait_group\s+2;", text, re.M), text
    assert re.search(r"^\+\s*cp\.async\.wait_group\s+4;", text, re.M), text


# --- facts straight from PTX text: unknown branches, robustness ---------------------------------

def _facts(text: str) -> dict[str, Fact]:
    view = PtxView.of(parse_ptx(text))
    facts = [pipeline_depth(view), *ptx_facts(view)]
    for fact in facts:
        assert fact.value is not None or fact.unknown, fact
        assert fact.group in GROUPS and fact.explanation
    return {f.key: f for f in facts}


def _need(path: Path) -> Path:
    if not path.is_file():
        pytest.skip(f"{path} not captured")
    return path


def test_depth_from_captured_ptx():
    for version in ("triton-3.6.0", "triton-3.9.0"):
        for variant, stages in (("naive", 3), ("opt", 4)):
            for arch in ("sm_80", "sm_90", "sm_100", "sm_120"):
                path = DATA / version / f"{variant}-{arch}.ptx"
                if path.is_file():
                    assert _facts(path.read_text())["pipeline_depth"].value == stages, path


def test_depth_unknown_when_the_pattern_breaks():
    text = _need(DATA / "triton-3.6.0" / "naive-sm_80.ptx").read_text()
    assert text.count("cp.async.wait_group \t2;") == 1
    odd = _facts(text.replace("cp.async.wait_group \t2;", "cp.async.wait_group \t3;"))["pipeline_depth"]
    assert odd.value is None and "not a multiple" in odd.unknown
    # two different immediates in the loop
    two = text.replace("cp.async.wait_group \t2;", "cp.async.wait_group \t2;\n\tcp.async.wait_group \t4;")
    differ = _facts(two)["pipeline_depth"]
    assert differ.value is None and "differ" in differ.unknown
    # waits without commits in the loop
    lonely = _facts(text.replace("cp.async.commit_group;", "add.s32 \t%r1, %r1, 1;"))["pipeline_depth"]
    assert lonely.value is None and "no known pattern" in lonely.unknown


def test_wait_group_without_an_immediate():
    """`cp.async.wait_group;` beside a real one: an unreadable immediate (None), not a TypeError."""
    text = _need(DATA / "triton-3.6.0" / "naive-sm_80.ptx").read_text()
    bare = text.replace("cp.async.wait_group \t2;", "cp.async.wait_group \t2;\n\tcp.async.wait_group;")
    facts = _facts(bare)
    assert facts["loop_wait_group"].value == (2, None)
    assert facts["pipeline_depth"].value is None and "differ" in facts["pipeline_depth"].unknown


# what ptx_facts / pipeline_depth read: these opcodes, cp.async*, tcgen05.mma*, ld/st .global
RELEVANT_OPCODES = {"mma", "wgmma", "ldmatrix", "bar", "barrier", "mbarrier", "rem", "div", "setp"}


@pytest.mark.parametrize("path", sorted(DATA.glob("triton-*/*.ptx")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_view_reads_what_the_parser_reads(path):
    """PtxView.of decodes only the lines facts read, and only as far as they need: every instruction a
    fact could read is among its ops, and each op agrees with the parser's full decode."""
    view = PtxView.of(parse_ptx(path.read_text()))
    ops = {op.index: op for op in view.ops}
    for instruction in view.all:
        wanted = (instruction.opcode in RELEVANT_OPCODES
                  or instruction.mnemonic.startswith(("cp.async", "tcgen05.mma"))
                  or instruction.opcode in ("ld", "st") and "global" in instruction.modifiers)
        if wanted:
            op = ops.pop(instruction.index)
            assert (op.line, op.predicate, op.negated, op.mnemonic, op.opcode, op.modifiers, op.operands,
                    op.inline_asm) == (instruction.line, instruction.predicate, instruction.negated,
                                       instruction.mnemonic, instruction.opcode, instruction.modifiers,
                                       instruction.operands, instruction.inline_asm)
    # the rest: lines that only mention a fragment (mov.b32 %r1, global_smem; tcgen05.alloc ...)
    assert all(op.opcode not in RELEVANT_OPCODES for op in ops.values())
    if view.has_loop:
        assert [op.index for op in view.loop_ops] == [i.index for i in view.loop if i.index in {
            op.index for op in view.ops}]
        assert {op.index for op in view.after_ops} <= {i.index for i in view.after_loop}


FOREIGN = [Path(__file__).read_text(), (DATA / "pipeline_kernels.py").read_text(),
           (DATA / "triton-3.6.0" / "naive-sm_90.ttgir").read_text()]


@pytest.mark.parametrize("text", FOREIGN, ids=["this-file", "pipeline_kernels.py", "ttgir"])
def test_foreign_text(text):
    """Not PTX at all: no kernel (every fact unknown or empty), or a ParseError with its line."""
    try:
        facts = _facts(text)
    except ParseError as error:
        assert error.line and error.line >= 1
        return
    assert facts["pipeline_depth"].value is None and "no .entry kernel" in facts["pipeline_depth"].unknown


def test_no_kernel_and_no_loop_from_text():
    for text in ("", "\n\n", "// only a comment\n.version 8.7\n.target sm_90a\n"):
        facts = _facts(text)
        assert facts["pipeline_depth"].value is None and "no .entry kernel" in facts["pipeline_depth"].unknown
        assert facts["tensor_core_path"].value == "none"
        assert facts["loop_mma"].unknown.startswith("not applicable")
    add = _facts(_need(DATA / "triton-3.6.0" / "add-sm_90.ptx").read_text())
    assert add["pipeline_depth"].value is None and add["pipeline_depth"].unknown.startswith("not applicable")


def _sample(index: int) -> list[str]:
    return CAPTURED_36[index % len(CAPTURED_36)].read_text().split("\n")


JUNK_CHARS = st.sampled_from(list("{}();:@%$.,[]!0123456789 \t\x00é") + ["//", "\n", "bra", "mma"])


@st.composite
def mutated_ptx(draw):
    lines = _sample(draw(st.integers(0, 100)))
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["delete", "delete", "duplicate", "swap", "truncate", "corrupt",
                                     "corrupt", "cut_line"]))
        if not lines:
            break
        at = draw(st.integers(0, len(lines) - 1))
        if kind == "delete":
            del lines[at]
        elif kind == "duplicate":
            lines.insert(draw(st.integers(0, len(lines))), lines[at])
        elif kind == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
        elif kind == "truncate":
            lines = lines[:at]
        elif kind == "cut_line":
            lines[at] = lines[at][:draw(st.integers(0, len(lines[at])))]
        else:
            line = lines[at]
            pos = draw(st.integers(0, len(line)))
            lines[at] = line[:pos] + draw(JUNK_CHARS) + line[pos + draw(st.integers(0, 2)):]
    return "\n".join(lines)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_ptx())
def test_facts_on_mutated_ptx(text):
    """Either a ParseError that says on which line, or facts (some possibly unknown); nothing else."""
    try:
        facts = _facts(text)
    except ParseError as error:
        assert isinstance(error.line, int) and error.line >= 1, error
        assert error.stage == "ptx"
        return
    assert "pipeline_depth" in facts
    json.dumps({key: fact.as_dict() for key, fact in facts.items()})


@pytest.mark.parametrize("path", CAPTURED_36, ids=lambda p: p.name)
def test_facts_on_every_captured_ptx(path):
    facts = _facts(path.read_text())
    variant, arch = path.stem.split("-")
    if variant in ("naive", "opt"):
        assert facts["tensor_core_path"].value == PATH[arch]
        assert facts["loop_tensor_core_ops"].value > 0


# --- golden files -------------------------------------------------------------------------------

def _fact_values(report: Report) -> dict:
    return {key: ({"value": fact["value"]} if fact["value"] is not None else {"unknown": fact["unknown"]})
            for key, fact in report.as_dict()["facts"].items()}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("variant", ["naive", "opt"])
def test_golden_facts(request, variant, arch):
    """tests/golden/facts-<triton>-<variant>-<arch>.json; `pytest --update-golden` rewrites them."""
    facts = _fact_values(inspect(variant, arch=arch))
    check_golden(request.config, f"facts-{VERSION}-{variant}-{arch}", facts)


@needs_host_tma
def test_tma_with_tcgen05_depth_is_read_by_two_witnesses():
    # stages + 2 mbarrier.init on Blackwell (tests/test_loop_facts.py sweeps num_stages 1-6, two kernels)
    report = inspect("opt_tma", arch="sm_100")
    fact = report.fact("pipeline_depth")
    assert fact.value == 3 and "Two witnesses agree" in fact.explanation and "tcgen05" in fact.explanation


@needs_host_tma
def test_persistent_grouped_order_is_read():
    report = inspect("opt_tma", arch="sm_90")
    assert report["program_order"] == "grouped (persistent)" and report.group_size_m == 8
    assert report.pipeline_depth == 3


def test_depth_explanation_counts_steps_ahead_and_buffers():
    from ttinspect import diff

    change = diff("opt", "opt:num_stages=6").change("pipeline_depth")
    assert "loads 5 K steps ahead (was 3)" in change.explanation and "(+2 here)" in change.explanation
    configured = diff("add", "opt").change("num_stages")
    assert configured is None or "as configured" in configured.explanation

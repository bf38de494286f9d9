"""ttinspect.source: Python-line attribution of every stage, on the captured texts of both Triton
versions (tests/data) and on fresh builds with the installed one (LLVM IR, SASS with call sites, a
build without line info, a kernel calling a helper that calls tl.cdiv)."""

from __future__ import annotations

import re

import importlib.util
import sys
from pathlib import Path

import pytest
from golden_option import DATA, captured

from ttinspect import source
from ttinspect.errors import UsageError
from ttinspect.dialects.main_loop import main_loop_slice
from ttinspect.dialects.stages import get_stage

ROOT = Path(__file__).resolve().parents[1]
KERNEL = ROOT / "kernels" / "doc003.py"
SOURCE = KERNEL.read_text()
SOURCE_LINES = SOURCE.split("\n")
STAGES = ("ttir", "ttgir", "llir", "ptx", "sass")
VERSIONS = sorted(p.name for p in DATA.glob("triton-*"))


def kernel_range(variant: str) -> tuple[int, int]:
    """The variant's @triton.jit function in kernels/doc003.py: its `def` line and the line before the
    next decorator (ptxas may mark code with the blank lines after the body: sm_100 SASS does)."""
    name = {"naive": "matmul_naive_kernel", "opt": "matmul_opt_kernel"}[variant]
    start = next(i for i, line in enumerate(SOURCE_LINES, 1) if line.startswith(f"def {name}("))
    end = next(i for i in range(start + 1, len(SOURCE_LINES) + 1)
               if SOURCE_LINES[i - 1].startswith(("def ", "@")))
    return start, end - 1


def lines_with(variant: str, needle: str) -> list[int]:
    start, end = kernel_range(variant)
    return [i for i in range(start, end + 1) if needle in SOURCE_LINES[i - 1]]


def dot_line(variant: str) -> int:
    (line,) = lines_with(variant, "tl.dot(")
    return line


def load_lines(variant: str) -> list[int]:
    found = lines_with(variant, "tl.load(")
    assert len(found) == 2
    return found


def cdiv_lines(variant: str) -> set[int]:
    return set(lines_with(variant, "tl.cdiv("))


def read(version: str, name: str) -> str:
    return (DATA / version / name).read_text()


def counts(result) -> dict:
    return {c.line: c for c in result}


def total(result, family: str) -> int:
    return sum(c.family(family) for c in result)


def check_round_trip(stage: str, text: str, kernel_file: str, source_text: str = SOURCE) -> str:
    out = source.interleave(stage, text, kernel_file, source_text)
    assert source.strip_interleaved(stage, out) == text
    return out


# -------------------------------------------------------------------------------------------------
# captured texts: every stage, both Triton versions

DOC003 = [p for p in captured("ttir", "ttgir", "llir", "ptx", "sass") if p.name.startswith(("naive", "opt"))]


@pytest.mark.parametrize("path", [pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in DOC003])
def test_captured_stage_is_attributed_within_the_kernel(path: Path):
    stage = path.suffix[1:]
    variant = path.name.split("-")[0]
    text = path.read_text()
    info = source.source_info(stage, text, str(KERNEL))
    assert len(info.lines) == len(text.split("\n"))
    assert [a.line for a in info.lines] == list(range(1, len(info.lines) + 1))
    assert info.reason is None and info.code_lines > 0
    assert info.attributed >= 0.85 * info.code_lines, info.notes
    assert not any(a.source_line is not None and not a.code for a in info.lines)
    start, end = kernel_range(variant)
    for loop_only in (False, True):
        result = source.by_line(stage, text, str(KERNEL), loop_only=loop_only, source_text=SOURCE)
        assert all(start <= c.line <= end for c in result if c.line is not None)
        assert [c.line for c in result if c.line is not None] == sorted(c.line for c in result
                                                                        if c.line is not None)
        assert all(c.count == sum(c.breakdown.values()) for c in result)
        assert all(c.text == SOURCE_LINES[c.line - 1].strip() for c in result if c.line is not None)
    whole = source.by_line(stage, text, str(KERNEL))
    assert sum(c.count for c in whole) == info.code_lines  # every instruction counted once
    check_round_trip(stage, text, str(KERNEL))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("variant", ["naive", "opt"])
def test_dot_line_holds_the_tensor_core_work_sm80(version: str, variant: str):
    ptx = source.by_line("ptx", read(version, f"{variant}-sm_80.ptx"), str(KERNEL), loop_only=True)
    assert total(ptx, "mma") == 16 and counts(ptx)[dot_line(variant)].family("mma") == 16
    sass = source.by_line("sass", read(version, f"{variant}-sm_80.sass"), str(KERNEL), loop_only=True)
    assert total(sass, "HMMA") == 16 and counts(sass)[dot_line(variant)].family("HMMA") == 16
    ttgir = source.by_line("ttgir", read(version, f"{variant}-sm_80.ttgir"), str(KERNEL), loop_only=True)
    assert counts(ttgir)[dot_line(variant)].family("tt.dot") == total(ttgir, "tt.dot") >= 1


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("variant", ["naive", "opt"])
def test_dot_line_holds_the_wgmma_sm90(version: str, variant: str):
    text = read(version, f"{variant}-sm_90.ptx")
    for loop_only in (False, True):
        ptx = source.by_line("ptx", text, str(KERNEL), loop_only=loop_only)
        n = total(ptx, "wgmma.mma_async")
        assert n > 0 and counts(ptx)[dot_line(variant)].family("wgmma.mma_async") == n
    ttgir = source.by_line("ttgir", read(version, f"{variant}-sm_90.ttgir"), str(KERNEL), loop_only=True)
    assert counts(ttgir)[dot_line(variant)].family("ttng.warp_group_dot") == 1
    # SASS: ptxas's line table puts some HGMMA under the loop or a load line (see the report); they
    # stay inside the loop body's Python lines
    sass = source.by_line("sass", read(version, f"{variant}-sm_90.sass"), str(KERNEL), loop_only=True)
    body = {dot_line(variant), *load_lines(variant), *lines_with(variant, "for k in")}
    assert total(sass, "HGMMA") > 0
    assert all(c.line in body for c in sass if c.family("HGMMA"))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("variant", ["naive", "opt"])
def test_load_lines_hold_the_cp_async_of_the_loop(version: str, arch: str, variant: str):
    ptx = source.by_line("ptx", read(version, f"{variant}-{arch}.ptx"), str(KERNEL), loop_only=True)
    by = counts(ptx)
    n = total(ptx, "cp.async")
    assert n > 0 and all(by[line].family("cp.async") > 0 for line in load_lines(variant))
    assert sum(by[line].family("cp.async") for line in load_lines(variant)) == n
    sass = source.by_line("sass", read(version, f"{variant}-{arch}.sass"), str(KERNEL), loop_only=True)
    by = counts(sass)
    assert sum(by[line].family("LDGSTS") for line in load_lines(variant)) == total(sass, "LDGSTS") == n
    ttgir = source.by_line("ttgir", read(version, f"{variant}-{arch}.ttgir"), str(KERNEL), loop_only=True)
    copies = [counts(ttgir)[line].family("ttg.async_copy_global_to_local") for line in load_lines(variant)]
    assert copies == [1, 1]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("stage", ["ptx", "ttir", "ttgir"])
def test_inlined_cdiv_goes_to_the_kernel_line(version: str, stage: str):
    """tl.cdiv is standard.py:43 inlined at the kernel's lines 63, 64 and 80 (3.6 PTX names the call
    sites only in LLVM's comment, 3.9 on the .loc directive; MLIR through callsite locations)."""
    lines = source.line_map(stage, read(version, f"opt-sm_80.{stage}"), str(KERNEL))
    inlined = [a for a in lines if a.site and a.site.startswith("standard.py:43:")]
    assert inlined and all(a.inlined and a.code for a in inlined)
    assert {a.source_line for a in inlined} == cdiv_lines("opt")
    assert not any(a.site and a.site.startswith("standard.py") and a.source_line is None for a in lines)


@pytest.mark.parametrize("version", VERSIONS)
def test_sass_without_call_sites_says_so(version: str):
    """nvdisasm -g drops the call sites: standard.py:43 stays unattributed, and says where it is from."""
    text = read(version, "opt-sm_80.sass")
    info = source.source_info("sass", text, str(KERNEL))
    assert dict(info.unresolved).get("standard.py:43", 0) > 0
    assert any("-gi" in note for note in info.notes)
    out = check_round_trip("sass", text, str(KERNEL))
    assert "//> standard.py:43 (no call site in doc003.py)" in out
    (none,) = [c for c in source.by_line("sass", text, str(KERNEL)) if c.line is None]
    assert none.sites == ("standard.py:43",) and none.count == dict(info.unresolved)["standard.py:43"]


@pytest.mark.parametrize("version", VERSIONS)
def test_interleave_prints_the_python_line_when_it_changes(version: str):
    text = read(version, "opt-sm_80.ptx")
    loop = main_loop_slice("ptx", text)
    out = source.interleave("ptx", text, str(KERNEL), SOURCE, start_line=loop.start_line,
                            end_line=loop.end_line)
    lines = out.split("\n")
    original = text.split("\n")[loop.start_line - 1:loop.end_line]
    assert source.strip_interleaved("ptx", out) == "\n".join(original)
    dot = dot_line("opt")
    expected = f"\t//> doc003.py:{dot}: {SOURCE_LINES[dot - 1].strip()}"
    assert expected in lines
    # the comment comes right before the first instruction of the line, after the .loc
    at = lines.index(expected)  # after the .loc (3.6: after `// begin inline asm`), before the instruction
    assert lines[at - 1].lstrip().startswith((".loc", "//")) and lines[at + 1].lstrip()[:1].isalpha()
    # a comment only when the line changes: no two comments name the same line back to back
    comments = [line.strip() for line in lines if line.lstrip().startswith("//> ")]
    assert all(a != b for a, b in zip(comments, comments[1:], strict=False))
    for line in load_lines("opt"):
        assert f"//> doc003.py:{line}: {SOURCE_LINES[line - 1].strip()}" in comments


def test_llir_uses_its_comment_syntax():
    text = read(VERSIONS[-1], "naive-sm_90.llir")
    out = check_round_trip("llir", text, str(KERNEL))
    dot = dot_line("naive")
    assert f"  ;> doc003.py:{dot}: {SOURCE_LINES[dot - 1].strip()}" in out.split("\n")
    assert "//>" not in out


@pytest.mark.parametrize("stage", ["ptx", "ttgir", "sass"])
def test_paths_from_another_machine_match_by_basename(stage: str):
    text = read(VERSIONS[0], f"opt-sm_80.{stage}")
    # the path the captured files were compiled at (not necessarily this checkout's)
    recorded = re.search(r"(/[^\"\s]*?/kernels/doc003\.py)", text)[1]
    here = [a.source_line for a in source.line_map(stage, text, str(KERNEL))]
    moved = text.replace(recorded, "/home/someone/else/kernels/doc003.py")
    assert moved != text
    assert [a.source_line for a in source.line_map(stage, moved, str(KERNEL))] == here
    assert [a.source_line for a in source.line_map(stage, text, "doc003.py")] == here


def test_wrong_kernel_file_gives_a_reason_not_a_crash():
    text = read(VERSIONS[-1], "opt-sm_80.ptx")
    info = source.source_info("ptx", text, "/somewhere/other_kernel.py")
    assert info.attributed == 0 and "other_kernel.py" in info.reason and "doc003.py" in info.reason
    out = check_round_trip("ptx", text, "/somewhere/other_kernel.py", "x = 1\n")
    assert out.split("\n")[0].startswith("//> no source attribution: ")
    assert out.count("//> ") == 1


@pytest.mark.parametrize("version", VERSIONS)
def test_cuobjdump_sass_has_no_marks(version: str):
    text = read(version, "naive-sm_90.cuobjdump")
    info = source.source_info("sass", text, str(KERNEL))
    assert info.attributed == 0 and "//## File" in info.reason
    assert all(a.source_line is None for a in info.lines)
    (only,) = source.by_line("sass", text, str(KERNEL), loop_only=True)
    assert only.line is None and only.family("HGMMA") > 0


def test_unknown_stage_and_binary_stage():
    with pytest.raises(UsageError):
        source.line_map("cubin", "", str(KERNEL))
    with pytest.raises(UsageError):
        source.by_line("asm", "", str(KERNEL))


def test_no_main_loop_gives_empty_loop_counts():
    text = read(VERSIONS[-1], "add-sm_90.ptx")
    kernel_file = str(ROOT / "kernels" / "elementwise.py")
    assert source.by_line("ptx", text, kernel_file, loop_only=True) == ()
    whole = source.by_line("ptx", text, kernel_file)
    assert whole and whole[-1].line is not None  # everything attributed


def test_families():
    assert source.ptx_family("cp", ("async", "cg", "shared", "global")) == "cp.async"
    assert source.ptx_family("cp", ("async", "wait_group")) == "cp.async.wait_group"
    assert source.ptx_family("cp", ("async", "bulk", "tensor", "2d")) == "cp.async.bulk.tensor"
    assert source.ptx_family("wgmma", ("mma_async", "sync", "aligned")) == "wgmma.mma_async"
    assert source.ptx_family("ld", ("global", "v4", "b32")) == "ld.global"
    assert source.ptx_family("st", ("shared::cta", "b32")) == "st.shared"
    assert source.ptx_family("ldmatrix", ("sync", "aligned")) == "ldmatrix"
    assert source.ptx_family("mma", ("sync", "aligned", "m16n8k16")) == "mma"


def test_as_dict():
    text = read(VERSIONS[-1], "opt-sm_80.ptx")
    info = source.source_info("ptx", text, str(KERNEL))
    assert info.as_dict()["attributed"] == info.attributed
    row = counts(source.by_line("ptx", text, str(KERNEL), loop_only=True))[dot_line("opt")]
    assert row.as_dict()["families"]["mma"] == 16
    assert next(a for a in info.lines if a.code).as_dict()["code"] is True


# -------------------------------------------------------------------------------------------------
# fresh builds with the installed Triton: LLVM IR, SASS with call sites, no line info, a helper

@pytest.fixture(scope="module")
def builds():
    from ttinspect.engine.builds import build

    return {(variant, arch): build(variant, arch=arch) for variant in ("naive", "opt")
            for arch in ("sm_80", "sm_90")}


def kernel_file_of(result) -> str:
    from ttinspect.kernel.variants import module_source_path

    return module_source_path(result.metadata["ttinspect"]["kernel"].split(":")[0])


@pytest.mark.slow  # compiles
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("variant", ["naive", "opt"])
def test_fresh_build_every_stage(builds, variant: str, arch: str):
    result = builds[variant, arch]
    kernel_file = kernel_file_of(result)
    assert Path(kernel_file).resolve() == KERNEL.resolve()
    start, end = kernel_range(variant)
    for stage in STAGES:
        text = result.artifacts.text(stage)
        info = source.source_info(stage, text, kernel_file)
        assert info.reason is None and info.attributed >= 0.85 * info.code_lines, (stage, info.notes)
        loop = source.by_line(stage, text, kernel_file, loop_only=True)
        assert all(start <= c.line <= end for c in loop if c.line is not None)
        check_round_trip(stage, text, kernel_file)
    llir = source.by_line("llir", result.artifacts.text("llir"), kernel_file, loop_only=True)
    family = "asm mma" if arch == "sm_80" else "asm wgmma.mma_async"
    assert total(llir, family) > 0 and counts(llir)[dot_line(variant)].family(family) == total(llir, family)
    assert sum(counts(llir)[line].family("asm cp.async") for line in load_lines(variant)) == \
        total(llir, "asm cp.async") > 0
    if arch == "sm_80":
        for stage, family in (("ptx", "mma"), ("sass", "HMMA")):
            got = source.by_line(stage, result.artifacts.text(stage), kernel_file, loop_only=True)
            assert counts(got)[dot_line(variant)].family(family) == total(got, family) == 16


def _installed_cdiv_line() -> int:
    """tl.cdiv's body line in the installed Triton's standard.py (43 in 3.6-3.9, 40 in 3.3)."""
    import inspect as pyinspect

    import triton.language.standard as standard

    lines, start = pyinspect.getsourcelines(standard.cdiv.fn)
    return start + next(i for i, text in enumerate(lines) if text.strip().startswith("return"))


@pytest.mark.slow  # compiles
def test_fresh_llir_inlined_cdiv(builds):
    result = builds["opt", "sm_80"]
    lines = source.line_map("llir", result.artifacts.text("llir"), kernel_file_of(result))
    inlined = [a for a in lines if a.site and a.site.startswith(f"standard.py:{_installed_cdiv_line()}:")]
    assert inlined and {a.source_line for a in inlined} == cdiv_lines("opt")


@pytest.mark.slow  # compiles
def test_fresh_sass_with_call_sites(builds, tmp_path):
    """nvdisasm -gi prints `inlined at` marks when the cubin has them (Triton 3.9's PTX passes
    inlined_at to ptxas; 3.6's does not): then nothing stays unattributed."""
    from ttinspect.engine.tools import run_tool

    result = builds["opt", "sm_80"]
    cubin = tmp_path / "kernel.cubin"
    cubin.write_bytes(result.artifacts.data("cubin"))
    text = run_tool("nvdisasm", ["-c", "-gi", str(cubin)])
    info = source.source_info("sass", text, kernel_file_of(result))
    inlined_ptx = "inlined_at" in result.artifacts.text("ptx")
    assert ("inlined at" in text) == inlined_ptx
    if inlined_ptx:
        assert info.unresolved == () and info.attributed == info.code_lines
    sass = source.by_line("sass", text, kernel_file_of(result), loop_only=True)
    assert counts(sass)[dot_line("opt")].family("HMMA") == 16


@pytest.mark.slow  # compiles
def test_no_line_info(monkeypatch):
    """TRITON_DISABLE_LINE_INFO=1 (part of the cache key): every stage all None, with a reason."""
    from ttinspect.engine.builds import build

    monkeypatch.setenv("TRITON_DISABLE_LINE_INFO", "1")
    result = build("opt", arch="sm_80")
    for stage in STAGES:
        text = result.artifacts.text(stage)
        info = source.source_info(stage, text, str(KERNEL))
        assert info.attributed == 0 and all(a.source_line is None for a in info.lines)
        assert info.reason and "TRITON_DISABLE_LINE_INFO" in info.reason, stage
        out = check_round_trip(stage, text, str(KERNEL))
        assert out.split("\n")[0].startswith(get_stage(stage).comment + "> no source attribution")
        for loop_only in (False, True):
            (only,) = source.by_line(stage, text, str(KERNEL), loop_only=loop_only)
            assert only.line is None and only.count > 0


HELPER_KERNEL = '''\
import triton
import triton.language as tl


@triton.jit
def helper(n, BLOCK: tl.constexpr):
    return tl.cdiv(n, BLOCK) * 2


@triton.jit
def nested_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    m = helper(n, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * m, mask=mask)
'''


@pytest.mark.slow  # compiles
def test_nested_inlining_goes_to_the_outermost_kernel_line(tmp_path, monkeypatch):
    """standard.py:43 inlined into helper (line 7) inlined into the kernel at line 14: line 14, in
    every stage (3.9 PTX chains two .loc directives, 3.6 writes `@[ k.py:7:22 @[ k.py:14:18 ] ]`)."""
    from ttinspect.engine.builds import build_jit
    from ttinspect.kernel.argument_types import Pointer

    path = tmp_path / "nested_src_kernel.py"
    path.write_text(HELPER_KERNEL)
    spec = importlib.util.spec_from_file_location("nested_src_kernel", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "nested_src_kernel", module)
    spec.loader.exec_module(module)
    result = build_jit(module.nested_kernel, {"x_ptr": Pointer("fp32"), "out_ptr": Pointer("fp32"),
                                              "n": 1000}, {"BLOCK": 256}, "sm_90")
    call = HELPER_KERNEL.split("\n").index("    m = helper(n, BLOCK)") + 1
    body = HELPER_KERNEL.split("\n").index("    return tl.cdiv(n, BLOCK) * 2") + 1
    for stage in STAGES:
        text = result.artifacts.text(stage)
        lines = source.line_map(stage, text, str(path))
        from_helper = [a for a in lines if a.site and (a.site.startswith("standard.py:")
                                                      or a.site.startswith(f"{path.name}:{body}"))]
        resolved = [a for a in from_helper if a.source_line is not None]
        # nvdisasm -g drops call sites, and so does Triton 3.3's PTX (no inlined_at, no `@[` marks):
        # the helper's own line is all they know.
        if stage == "sass" or (stage == "ptx" and "inlined_at" not in text and "@[" not in text):
            assert all(a.source_line in (call, body) for a in resolved)
            continue
        assert from_helper and all(a.source_line == call and a.inlined for a in from_helper), stage
        assert not any(a.source_line == body for a in lines), stage
        out = check_round_trip(stage, text, str(path), HELPER_KERNEL)
        assert f"> {path.name}:{call}: m = helper(n, BLOCK)" in out
    # nvdisasm -gi: `standard.py inlined at k.py:7` then `k.py:7 inlined at k.py:14`, then `k.py:14`
    from ttinspect.engine.tools import run_tool

    cubin = tmp_path / "kernel.cubin"
    cubin.write_bytes(result.artifacts.data("cubin"))
    text = run_tool("nvdisasm", ["-c", "-gi", str(cubin)])
    lines = source.line_map("sass", text, str(path))
    if "inlined at" in text:
        assert not any(a.source_line == body or (a.code and a.source_line is None and a.site)
                       for a in lines)
        assert any(a.source_line == call for a in lines)

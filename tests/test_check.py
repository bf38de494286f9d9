"""`ttinspect check`: each rule fires on a kernel that has its problem and stays silent on one that does
not; the clean reference (opt_tma on sm_90) has no findings; the CLI's JSON, filters and exit codes; the
API (`inspect(...).findings`) and the pytest plugin's `max_severity`; a warm check imports neither triton
nor torch; Triton cache entries give findings or silence, never a crash."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import run_cli
from triton_features import needs_amd

from ttinspect import inspect
from ttinspect.check import Finding, check_reference
from ttinspect.refs.resolver import RefOptions

pytest_plugins = ["pytester"]

DATA = Path(__file__).parent / "data"
KERNELS = DATA / "check_kernels" / "kernels.py"
STRIDES = "i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1"  # M N K, unit inner strides


def mm(a="*fp16:16", b="*fp16:16", blocks=(64, 64, 32), strides=STRIDES) -> str:
    return f"{a}, {b}, *fp16:16, {strides}, {', '.join(map(str, blocks))}"


# (name, reference, arch, signature, settings)
CASES = {
    "mm_sm90": ("matmul", "sm_90", mm(), {}),
    "mm_sm80_warps2": ("matmul", "sm_80", mm(), {"num_warps": 2}),
    "mm_unaligned": ("matmul", "sm_90", mm("*fp16", "*fp16"), {}),
    "mm_sm75": ("matmul", "sm_75", mm(), {}),
    "mm_warps2": ("matmul", "sm_90", mm(), {"num_warps": 2}),
    "mm_block_m32": ("matmul", "sm_90", mm(blocks=(32, 64, 32)), {}),
    "mm_sm100_warps2": ("matmul", "sm_100", mm(), {"num_warps": 2}),
    "mm_big_tile": ("matmul", "sm_90", mm(blocks=(128, 256, 64)), {}),
    "mm_two_stages_big": ("matmul", "sm_90", mm(blocks=(128, 256, 128)), {"num_stages": 2, "num_warps": 8}),
    "mm_runtime_stride": ("matmul", "sm_90", mm(strides="i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 1, "
                                                        "i32:16, 1"), {}),
    "one_stage_loop": ("matmul_one_stage_loop", "sm_90", "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, "
                                                         "i32:16, 64, 64, 32", {}),
    "outer_dot_loop": ("matmul_outer_dot_loop", "sm_90", "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, "
                                                         "i32:16, i32:16, 64, 64, 32", {}),
    "row_sums": ("row_sums", "sm_90", "*fp16:16, *fp32:16, i32:16, i32:16, 16, 128", {}),
    "gather": ("gather_matmul", "sm_90", "*fp16:16, *i32:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, "
                                         "64, 64, 32", {}),
    "add_aligned": ("add", "sm_90", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", {}),
    "add_unaligned": ("add", "sm_90", "*fp32, *fp32:16, *fp32:16, i32, 1024", {}),
    "scalar_load": ("scale_by_scalar", "sm_90", "*fp32:16, *fp32, *fp32:16, 1024", {}),
    "live_values": ("many_live_values", "sm_90", "*fp32:16, *fp32:16, 4096", {}),
    "mm_sm100_unaligned": ("matmul", "sm_100", mm("*fp16", "*fp16"), {}),
    "mm_unhinted_spills": ("matmul", "sm_90", mm(blocks=(128, 128, 64), strides=", ".join(["i32"] * 9)),
                           {"num_stages": 4}),
    "gather_before_loop": ("gather_rows_before_loop", "sm_90", "*i32:16, *bf16:16, *bf16:16, i32, i32:16, i32:16, "
                                                               "i32:16, 16, 256", {"num_warps": 4}),
    "softmax_huge": ("row_softmax", "sm_90", "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 32768", {"num_warps": 4}),
    "int8_mm": ("int8_matmul", "sm_80", "*i8:16, *i8:16, *i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 64", {}),
}

_FOUND: dict[str, tuple] = {}


def findings(case: str) -> tuple[Finding, ...]:
    if case not in _FOUND:
        name, arch, signature, settings = CASES[case]
        _FOUND[case] = check_reference(f"{KERNELS}:{name}", RefOptions(settings, {}, signature, None, arch))[1]
    return _FOUND[case]


def ids(case: str) -> set[str]:
    return {f.id for f in findings(case)}


# rule, the cases that trigger it, the cases where it must stay silent
RULES = [
    ("TTI001", ["mm_unaligned", "mm_sm75", "one_stage_loop", "outer_dot_loop", "row_sums", "gather",
                "mm_sm100_unaligned"],
     ["mm_sm90", "mm_big_tile", "add_aligned"]),
    ("TTI002", ["mm_warps2", "mm_block_m32", "mm_sm100_warps2"], ["mm_sm90", "mm_sm80_warps2"]),
    ("TTI003", ["mm_big_tile"], ["mm_sm90", "add_aligned"]),
    ("TTI004", ["live_values"], ["add_aligned", "mm_sm90"]),
    ("TTI005", ["add_unaligned", "mm_unaligned", "mm_runtime_stride"], ["add_aligned", "scalar_load", "gather",
                                                                        "mm_sm90"]),
    ("TTI006", ["mm_two_stages_big"], ["mm_sm90", "add_aligned"]),
    ("TTI007", ["mm_sm90", "mm_warps2"], ["mm_sm80_warps2", "add_aligned"]),
]


@pytest.mark.parametrize("rule, case", [(r, c) for r, fire, _ in RULES for c in fire])
def test_rule_fires(rule, case):
    found = [f for f in findings(case) if f.id == rule]
    assert found, f"{rule} silent on {case}: {[f.id for f in findings(case)]}"
    for finding in found:
        assert finding.evidence and finding.why and finding.fix


@pytest.mark.parametrize("rule, case", [(r, c) for r, _, silent in RULES for c in silent])
def test_rule_silent(rule, case):
    assert rule not in ids(case), "\n".join(f.text() for f in findings(case) if f.id == rule)


def test_why_not_pipelined_names_the_cause():
    def why(case):
        return next(f.why for f in findings(case) if f.id == "TTI001")

    assert "cp.async" in why("mm_sm75") and "sm_75" in why("mm_sm75")
    assert "num_stages=1" in why("one_stage_loop")
    assert "not the innermost" in why("outer_dot_loop")
    assert "feed no tl.dot" in why("row_sums")
    assert "fewer than 4 bytes" in why("mm_unaligned")
    assert "another load" in why("gather")


def test_mma_reason_and_fix_have_numbers():
    warps = next(f for f in findings("mm_warps2") if f.id == "TTI002")
    assert "num_warps=2" in warps.why and "num_warps=4" in warps.fix
    block = next(f for f in findings("mm_block_m32") if f.id == "TTI002")
    assert "M = 32" in block.why and "BLOCK_M to 64" in block.fix


def test_spills_name_python_lines_and_the_accumulator():
    spill = next(f for f in findings("mm_big_tile") if f.id == "TTI003")
    assert any(e.stage == "sass" and e.python_line for e in spill.evidence)
    assert "128×256/(32×4) = 256" in spill.fix


def test_occupancy_lift_is_computed_by_the_calculator():
    occ = next(f for f in findings("live_values") if f.id == "TTI004")
    assert "registers" in occ.title and "registers per thread" in occ.fix and "CTAs/SM" in occ.fix


def test_narrow_access_names_the_argument():
    add = [f for f in findings("add_unaligned") if f.id == "TTI005"]
    assert add and all(f.severity == "warning" for f in add)
    assert any("x_ptr" in f.why for f in add) and all("n: an integer" in f.why for f in add)
    stride = next(f for f in findings("mm_runtime_stride") if f.id == "TTI005")
    assert stride.severity == "info" and "stride_ak" in stride.why and "unknown" in stride.why


def test_shared_memory_over_the_limit_is_an_error_with_tritons_message():
    report, found = check_reference(f"{KERNELS}:matmul", RefOptions({"num_stages": 4, "num_warps": 8}, {},
                                                                    mm(blocks=(128, 256, 64)), None, "sm_89"))
    error = next(f for f in found if f.id == "TTI006")
    assert error.severity == "error" and found[0] is error  # errors come first
    assert "out of resource: shared memory, Required: 147456, Hardware limit: 101376" in error.title
    assert "num_stages=3" in error.fix


def test_opt_tma_on_hopper_is_clean():
    assert inspect("opt_tma", arch="sm_90").findings == ()


def test_api_findings_are_lazy_and_sorted():
    report = inspect("tileon", arch="sm_90")
    assert "findings" not in report.__dict__
    found = report.findings
    assert report.findings is found and "TTI003" in {f.id for f in found}
    assert [f.rank for f in found] == sorted((f.rank for f in found), reverse=True)


def test_cli_json_shape():
    result = run_cli("check", "tileon", "--arch", "sm_90", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"label", "kernel", "target", "triton_version", "min_severity", "counts", "findings"}
    finding = data["findings"][0]
    assert set(finding) == {"id", "slug", "severity", "title", "evidence", "why", "fix"}
    assert set(finding["evidence"][0]) == {"stage", "line", "text", "python_line"}
    assert data["counts"]["warning"] >= 1


def test_cli_filters_and_exit_codes():
    args = ("check", "tileon", "--arch", "sm_90")
    assert run_cli(*args).exit_code == 0  # findings, but exit 0 without --fail-on
    assert run_cli(*args, "--fail-on", "warning").exit_code == 1
    assert run_cli(*args, "--fail-on", "error").exit_code == 0
    only_errors = json.loads(run_cli(*args, "--json", "--min-severity", "error").output)
    assert only_errors["findings"] == [] and only_errors["counts"]["warning"] >= 1
    text = run_cli("check", "opt_tma", "--arch", "sm_90").output
    assert "no findings" in text
    assert run_cli("check", "opt_tma", "--arch", "sm_90", "--fail-on", "warning").exit_code == 0
    bad = run_cli(*args, "--min-severity", "loud")
    assert bad.exit_code == 2 and "ttinspect: error:" in bad.output


def test_cli_text_shows_evidence_with_python_lines():
    out = run_cli("check", f"{KERNELS}:add", "--arch", "sm_90", "--signature", CASES["add_unaligned"][2]).output
    assert "TTI005" in out and "← line" in out and "why" in out and "fix" in out


@pytest.mark.parametrize("arch", ["sm_90", pytest.param("gfx942", marks=needs_amd)])
def test_warm_check_imports_neither_triton_nor_torch(arch):
    run_cli("check", "tileon", "--arch", arch)  # warm the cache
    code = ("import sys\nfrom ttinspect.cli.main import cli\n"
            f"try:\n    cli(['check', 'tileon', '--arch', '{arch}', '--json'], prog_name='ttinspect')\n"
            "except SystemExit:\n    pass\n"
            "print([m for m in ('triton', 'torch') if m in sys.modules], file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr


@pytest.mark.parametrize("entry", sorted(p.name for p in (DATA / "triton_cache").iterdir() if p.is_dir()))
def test_triton_cache_entries_never_crash(entry, tmp_path):
    env = {"TRITON_CACHE_DIR": str(DATA / "triton_cache")}
    result = run_cli("check", f"cache:{entry}", "--json", env=env)
    if result.exit_code != 0:  # an entry ttinspect refuses (foreign, unreadable) says so in one line
        assert result.output.startswith("ttinspect: error:") and result.exit_code != 70, result.output
        return
    data = json.loads(result.output)
    for finding in data["findings"]:
        assert finding["evidence"] and finding["fix"]


def test_plugin_max_severity(pytester):
    pytester.makepyfile(test_findings='''
        def test_clean(ttinspect):
            ttinspect.expect(ttinspect.inspect("opt_tma", arch="sm_90"), max_severity="info")

        def test_spills(ttinspect):
            ttinspect.expect(ttinspect.inspect("tileon", arch="sm_90"), max_severity="info", num_warps=4)
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "1 of 2 expectation(s) failed" in out
    assert "WARNING TTI003 register-spills" in out and "sass:" in out and "fix:" in out


def test_plugin_max_severity_rejects_an_unknown_level():
    from ttinspect import UsageError
    from ttinspect.pytest_plugin import expect

    with pytest.raises(UsageError, match="max_severity"):
        expect(inspect("opt_tma", arch="sm_90"), max_severity="fatal")


def finding(case: str, rule: str) -> Finding:
    return next(f for f in findings(case) if f.id == rule)


# --- review C ---------------------------------------------------------------------------------------

def test_spills_below_the_register_cap_say_so_and_suggest_maxnreg():
    spill = finding("softmax_huge", "TTI003")
    registers = int(re.search(r"at (\d+) registers", spill.title)[1])
    # Triton 3.9's ptxas spills this kernel at 32 registers; 3.6's at the cap (255): each gets its own why.
    if registers <= 255 - 16:
        assert f"at {registers} registers" in spill.title
        assert f"only {registers} of the 255" in spill.why and "not pressure at the register cap" in spill.why
        assert "could not keep every live value" not in spill.why
        assert "--set maxnreg=255" in spill.fix and "num_warps=8" in spill.fix and "ttinspect report" in spill.fix
    else:
        assert "could not keep every live value" in spill.why and "not pressure at the register cap" not in spill.why
    assert "stages" not in spill.fix  # no loop, nothing pipelined: fewer stages cannot help


def test_spills_of_an_unpipelined_loop_never_suggest_fewer_stages():
    spill = finding("mm_unhinted_spills", "TTI003")
    assert "stages" not in spill.fix


def test_tiny_spill_is_info():
    from ttinspect.check.registers import SMALL_SPILL_BYTES, register_spills
    from ttinspect.facts.model import Fact

    class Tiny:
        values = {"spill_store_bytes": 4, "spill_load_bytes": 4, "spills": 1, "registers": 255, "num_warps": 4}

        def fact(self, key):
            if key not in self.values:
                raise KeyError(key)
            return Fact(key, key, "registers & occupancy", self.values[key], "", "ptxas -v")

    assert SMALL_SPILL_BYTES >= 4
    (found,) = register_spills(Tiny(), None)
    assert found.severity == "info"
    Tiny.values = {**Tiny.values, "spill_store_bytes": SMALL_SPILL_BYTES + 4}
    assert register_spills(Tiny(), None)[0].severity == "warning"


def test_spill_evidence_ranks_python_lines_by_spill_instructions():
    spill = finding("mm_big_tile", "TTI003")
    summary = next(e for e in spill.evidence if e.text.startswith("top lines by spill instructions"))
    counts = [int(part.rsplit(": ", 1)[1]) for part in summary.text.split("): ", 1)[1].split(", ")]
    assert counts == sorted(counts, reverse=True) or "main loop" in " ".join(e.text for e in spill.evidence)
    sass = [e for e in spill.evidence if e.stage == "sass" and e.line is not None]
    assert sass and all("STL +" in e.text and "LDL" in e.text for e in sass)


def test_occupancy_silent_when_the_pipeline_depth_is_unknown():
    import dataclasses

    from ttinspect.check import check

    report = inspect("opt_tma", arch="sm_90")
    depth = report.fact("pipeline_depth")
    unknown = dataclasses.replace(depth, value=None, unknown="the witnesses disagree: PTX reads 3; TTGIR reads 4")
    blind = dataclasses.replace(report, facts=tuple(unknown if f.key == "pipeline_depth" else f for f in report.facts))
    assert "TTI004" not in {f.id for f in check(blind)}


def test_occupancy_never_suggests_fewer_registers_to_a_spilling_kernel():
    assert "TTI003" in ids("mm_unhinted_spills")
    occ = finding("mm_unhinted_spills", "TTI004")
    assert "maxnreg=" not in occ.fix and "spill" in occ.fix


def test_indices_loaded_before_the_loop_are_not_indirection():
    why = finding("gather_before_loop", "TTI001").why
    assert "another load" not in why and "indirection" not in why
    assert "another load" in finding("gather", "TTI001").why  # loaded inside the loop: still found


def test_default_num_stages_and_a_loop_without_dot():
    loop = finding("gather_before_loop", "TTI001")
    assert "Triton's default num_stages=3" in loop.title
    assert "tensor cores" not in loop.why and "K step" not in loop.why
    assert "Triton's default" not in finding("mm_two_stages_big", "TTI006").title  # num_stages set: not default


def test_sm100_loop_without_async_copies_is_not_pipelined():
    loop = finding("mm_sm100_unaligned", "TTI001")
    # the tcgen05 loop's barrier waits hide the PTX pattern; the TTGIR (no ring, plain loads) reads 1
    assert any(e.text == "pipeline depth (num_stages) = 1" for e in loop.evidence)
    name, arch, signature, settings = CASES["mm_sm100_unaligned"]
    depth = inspect(f"{KERNELS}:{name}", arch=arch, signature=signature, **settings).fact("pipeline_depth")
    assert depth.value == 1 and "One witness: TTGIR" in depth.explanation


def test_unit_stride_advice_says_pass_it_as_one():
    narrow = [f for f in findings("mm_unhinted_spills") if f.id == "TTI005" and "line 20" in f.title]
    assert narrow, [f.title for f in findings("mm_unhinted_spills")]
    fix = narrow[0].fix
    # Both strides are runtime values: Triton cannot know which is 1, so neither is named the contiguous
    # one (its layout order is a guess that differs between releases); each gets both options.
    for stride in ("stride_am", "stride_ak"):
        assert f"{stride}: if it is 1 at launch (the contiguous dimension), pass it as 1" in fix
        assert f"otherwise launch it divisible by 16 ({stride} `i32:16`)" in fix
    assert "is the stride of the contiguous dimension" not in fix


def test_size_not_a_multiple_of_16_given_by_value_is_not_told_to_declare_16():
    out = run_cli("check", f"{KERNELS}:add", "--arch", "sm_90", "--arg", "x_ptr=*fp32", "--arg", "y_ptr=*fp32",
                  "--arg", "out_ptr=*fp32", "--arg", "n=4097", "--set", "BLOCK=1024", "--json")
    data = json.loads(out.output)
    narrow = [f for f in data["findings"] if f["id"] == "TTI005"]
    assert narrow
    for f in narrow:
        assert "i32:16" not in f["fix"] and "4097" in f["fix"] and "Pad" in f["fix"]
        assert f["severity"] == "info"  # no loop to pipeline, no hint to declare


def test_pipelining_advice_matches_narrow_access_advice():
    fix = finding("mm_unhinted_spills", "TTI001").fix
    assert "16-byte alignment" not in fix and "TTI005" in fix


def test_descriptors_on_sm80_are_named_whole_and_explained():
    found = inspect("opt_tma", arch="sm_80").findings
    narrow = [f for f in found if f.id == "TTI005"]
    assert narrow
    for f in narrow:
        assert "[128,:16" not in f.fix and ">:16" not in f.fix
        assert "TMA needs sm_90+" in f.why
    assert "TMA needs sm_90+" in next(f for f in found if f.id == "TTI001").why


def test_int8_accumulator_is_int32():
    from ttinspect.check.accumulators import dot_accumulator

    from ttinspect.errors import CompileError

    try:
        report, _ = check_reference(f"{KERNELS}:int8_matmul", RefOptions({}, {}, CASES["int8_mm"][2], None, "sm_80"))
    except CompileError as error:  # Triton 3.6 cannot compile this int8 dot for sm_80 (an assertion inside it)
        pytest.skip(f"this Triton cannot compile the int8 kernel: {error}")
    assert dot_accumulator(report.build)[3] == "int32"
    spill = [f for f in findings("int8_mm") if f.id == "TTI003"]
    for f in spill:
        assert "int32 registers" in f.fix and "fp32" not in f.fix


def test_shared_memory_error_leads_with_block_sizes_when_stages_do_not_dominate():
    from types import SimpleNamespace

    from ttinspect.check.shared import shared_memory_limit
    from ttinspect.facts.model import Fact
    from ttinspect.targets.lookup import parse_arch

    class Report:
        values = {"shared_memory": 200_000, "num_stages": 2}

        def fact(self, key):
            if key not in self.values:
                raise KeyError(key)
            return Fact(key, key, "configuration", self.values[key], "", "metadata")

    class NoStages:
        def text(self, stage):
            raise KeyError(stage)

    build = SimpleNamespace(target=parse_arch("sm_89"), artifacts=NoStages(), metadata={}, source_file=None)
    (error,) = shared_memory_limit(Report(), build)
    assert error.severity == "error" and error.fix.index("BLOCK_M/BLOCK_N") < len(error.fix) // 2
    assert "num_stages=1" not in error.fix


def _history_evidence(found):
    return [e for f in found if f.id == "TTI001" for e in f.evidence if e.stage == "passes"]


def test_cached_pass_history_adds_evidence_and_check_never_computes_it(monkeypatch):
    import ttinspect.passes.store as store

    name, arch, signature, settings = CASES["row_sums"]
    options = RefOptions(settings, {}, signature, None, arch)
    monkeypatch.setattr(store, "cached_history", lambda build: None)  # as if nothing were cached
    _, plain = check_reference(f"{KERNELS}:{name}", options)
    assert not _history_evidence(plain)
    monkeypatch.undo()
    report, with_passes = check_reference(f"{KERNELS}:{name}", options, passes=True)
    evidence = _history_evidence(with_passes)
    assert any("assign-latencies gave no load a latency" in e.text for e in evidence)
    assert any("made no multi-buffered ttg.local_alloc" in e.text for e in evidence)
    assert store.cached_history(report.build) is not None
    _, warm = check_reference(f"{KERNELS}:{name}", options)  # cached now: the plain check shows it too
    assert _history_evidence(warm)


def test_cli_passes_flag():
    name, arch, signature, _ = CASES["row_sums"]
    data = json.loads(run_cli("check", f"{KERNELS}:{name}", "--arch", arch, "--signature", signature, "--passes",
                              "--json").output)
    loop = next(f for f in data["findings"] if f["id"] == "TTI001")
    assert any(e["stage"] == "passes" for e in loop["evidence"])


def test_no_color_on_a_terminal_gives_no_escape_codes():
    import pty

    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("COLUMNS", None)
    code = ("from ttinspect.cli.main import cli\ncli(['check', 'tileon', '--arch', 'sm_90'], prog_name='ttinspect')")
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=follower, stderr=follower, env=env)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait()
    os.close(leader)
    assert b"TTI003" in out and b"\x1b[" not in out, out[:300]


def test_piped_output_fits_columns():
    env = {**os.environ, "COLUMNS": "80"}
    env.pop("NO_COLOR", None)
    done = subprocess.run([sys.executable, "-m", "ttinspect.cli", "check", f"{KERNELS}:add", "--arch", "sm_90",
                           "--signature", CASES["add_unaligned"][2]], capture_output=True, text=True, env=env)
    if done.returncode != 0 or not done.stdout:  # no `python -m` entry: go through click
        done = subprocess.run([sys.executable, "-c", "from ttinspect.cli.main import cli\ncli(prog_name='ttinspect')",
                               "check", f"{KERNELS}:add", "--arch", "sm_90", "--signature",
                               CASES["add_unaligned"][2]], capture_output=True, text=True, env=env)
    lines = done.stdout.splitlines()
    assert any(line.startswith("  why  ") for line in lines) and any(line.startswith("       ") for line in lines)
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    assert "\x1b[" not in done.stdout


def test_findings_are_kept_beside_the_artifacts(monkeypatch):
    """A warm check reads its findings back (no rule runs); a damaged copy is computed again."""
    from ttinspect.check import run

    first = inspect("tileon", arch="sm_90").findings
    assert first
    calls = []
    real = run._run_rules
    monkeypatch.setattr(run, "_run_rules", lambda *a: calls.append(a) or real(*a))
    report = inspect("tileon", arch="sm_90")
    assert report.findings == first and not calls
    kept = [p for p in report.build.artifacts.directory.glob("kernel.findings-*.json")]
    assert kept
    for path in kept:
        path.write_text("[]")  # its digest no longer matches
    assert inspect("tileon", arch="sm_90").findings == first and calls


def test_findings_depend_on_the_arguments_given():
    """--arg values (a size that is not a multiple of 16) change the advice: not read from another's file."""
    from ttinspect.check import check

    report = inspect(str(KERNELS) + ":add", arch="sm_90", signature="*fp32:16, *fp32:16, *fp32:16, i32, 1024")
    plain = check(report)
    given = check(report, {"n": 4097})
    assert check(report) == plain and check(report, {"n": 4097}) == given
    assert [f.fix for f in given] != [f.fix for f in plain]  # the odd size is named, not `i32:16`

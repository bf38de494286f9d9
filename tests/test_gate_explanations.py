"""What the gate says about a change, as a maintainer reviewing a pull request reads it (issue 41, reviewed again on
a library of its own): the cause the compiled code shows and the fix for that cause (an IEEE fp32 dot is named
even though the TTIR prints no precision for it), spills in the same bytes TTI003 counts, an occupancy fix for
what limits it, a broken import annotated at the import, one row and one annotation for an error every target
shares, and no runner's absolute path in any format."""

from __future__ import annotations

import json

import pytest

from cli_helpers import run_process
from test_ci_formats import validate_sarif
from test_gate_policy import TODAY, checked, entry
from ttinspect.ci.markdown import to_markdown
from ttinspect.ci.sarif import to_sarif
from ttinspect.dialects.mlir import dot_input_precision
from ttinspect.snapshot.config import load
from ttinspect.snapshot.gate import error_location, gate
from ttinspect.snapshot.run import for_code_scanning


@pytest.mark.parametrize("attrs, precision", [
    ("%a, %b, %c ", "ieee"),  # input_precision="ieee": the default, which MLIR prints as nothing
    ("%a, %b, %c, inputPrecision = tf32 ", "tf32"),
    ("%a, %b, %c, inputPrecision = tf32x3 ", "tf32x3"),
    ("%a, %b, %c {allowTF32 = false} ", "ieee"),  # Triton before 3.0
    ("%a, %b, %c {allowTF32 = true} ", "tf32"),
])
def test_a_dots_precision_as_the_ttir_says_it(attrs, precision):
    assert dot_input_precision(attrs) == precision


def _lost_tensor_cores(dots):
    committed = {"ops/mm.py:a@sm_90": entry(tensor_core_path="wgmma")}
    now = {"ops/mm.py:a@sm_90": {**entry(tensor_core_path="none"), "evidence": {"dots": dots}}}
    report = gate({"entries": committed}, now, fail_on="error", guard=("tensor_core_path",))
    return next(r for r in report.results if r.rule == "regression/tensor-core-path")


def test_a_tensor_core_path_lost_to_an_ieee_fp32_dot_names_it_and_its_fix():
    lost = _lost_tensor_cores([{"a": "f32", "b": "f32", "precision": "ieee", "ttir_line": 51, "python_line": 37}])
    assert 'f32 × f32 operands with input_precision="ieee"' in lost.detail and "line 37, ttir:51" in lost.detail
    assert ".to(tl.float32)" in lost.fix and 'input_precision="tf32"' in lost.fix
    assert "shapes" not in lost.fix  # not the general advice when the cause is known
    unknown = _lost_tensor_cores([{"a": "f16", "b": "f16", "precision": "tf32", "ttir_line": 9}])
    assert unknown.fix.startswith("Check the dot's shapes")  # no cause shown: the guard's advice


def test_spills_say_ptxas_bytes_and_take_tti003s_fix():
    tti003 = {"id": "TTI003", "severity": "warning", "title": "register spills", "line": 37,
              "fix": "num_warps=8 with BLOCK_N=128"}
    now = {"ops/mm.py:a@sm_80": {**entry(spills=884, registers=255), "findings": [tti003],
                                 "evidence": {"spill_bytes": {"spill_store_bytes": 7996, "spill_load_bytes": 7220}}}}
    report = gate({"entries": {"ops/mm.py:a@sm_80": entry()}}, now, fail_on="warning", guard=("spills",))
    spills = next(r for r in report.results if r.rule == "regression/spills")
    assert spills.message == ("spills: local memory 0 → 3536 B per thread (ptxas: 7996 B stored, 7220 B loaded) "
                              "on sm_80")
    assert spills.fix == "num_warps=8 with BLOCK_N=128" and "stack frame" in spills.detail


@pytest.mark.parametrize("limit, says", [
    ("registers", "maxnreg"),
    ("shared memory", "num_stages"),
    ("warps", "num_warps"),
])
def test_an_occupancy_fix_is_for_what_limits_it(limit, says):
    now = {"ops/mm.py:a@sm_90": entry(occupancy="12%", occupancy_limit=limit, blocks_per_sm=1)}
    report = gate({"entries": {"ops/mm.py:a@sm_90": entry()}}, now, fail_on="error", guard=("occupancy",))
    occupancy = next(r for r in report.results if r.rule == "regression/occupancy")
    assert says in occupancy.fix and "names the limiting resource" not in occupancy.fix


@pytest.mark.parametrize("error, line", [
    ("ops/n.py:36: SyntaxError: invalid syntax", 36),
    ("importing ops/n.py raised ModuleNotFoundError: No module named 'ops.commonx' (ops/n.py:4; "
     "TTINSPECT_DEBUG=1 shows the whole traceback)", 4),
    ("importing ops/n.py raised ValueError: boom (ops/helper.py:9)", 1),  # another file's line: not this one's
])
def test_a_file_that_no_longer_loads_is_annotated_at_the_line_its_error_names(error, line):
    assert error_location("ops/n.py:*@sm_90", error) == ("ops/n.py", line)


def test_an_error_every_target_shares_is_one_row_and_one_annotation(tmp_path):
    error = "importing ops/n.py raised ModuleNotFoundError: No module named 'x' (ops/n.py:4; ...)"
    now = {f"ops/n.py:*@{target}": {"error": error} for target in ("sm_80", "sm_90")}
    report = checked(tmp_path, "", {}, now)
    markdown = to_markdown(report)
    assert markdown.count("ModuleNotFoundError") == 1 and "ops/n.py:\\*@sm\\_80, sm\\_90" in markdown
    log = to_sarif(for_code_scanning(report, tmp_path, load(tmp_path).kernels_at), tmp_path)
    validate_sarif(log)
    (result,) = log["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 4


def test_no_format_names_the_runners_absolute_path(tmp_path):
    """An expired allow's pyproject.toml line, and SARIF's entries, are said from the library's or repository's
    root, as every result's file is."""
    allow = ("[[tool.ttinspect.allow]]\nrule = 'regression/spills'\nreason = 'known'\n"
             f"expires = {TODAY.replace(year=2020).isoformat()}\n")
    now = {"ops/mm.py:a@sm_90": entry(spills=1)}
    report = checked(tmp_path, allow, {"ops/mm.py:a@sm_90": entry()}, now)
    assert any("pyproject.toml:" in note and "expired" in note for note in report.notes)
    log = to_sarif(for_code_scanning(report, tmp_path, load(tmp_path).kernels_at), tmp_path)
    for text in (to_markdown(report), json.dumps(report.as_dict()), json.dumps(log)):
        assert str(tmp_path) not in text.replace(tmp_path.as_uri(), "")  # originalUriBaseIds names the root


def test_a_budget_says_its_value_and_limit_in_one_unit(tmp_path):
    report = checked(tmp_path, "[[tool.ttinspect.budget]]\nregisters = 64\noccupancy = 50\n",
                     {"ops/mm.py:a@sm_90": entry()}, {"ops/mm.py:a@sm_90": entry()})
    said = sorted(r.message for r in report.results if r.rule.startswith("budget/"))
    assert said == ["occupancy: 25%, under the budget of at least 50% (pyproject.toml:4) on sm_90",
                    "registers: 96 per thread, over the budget of at most 64 per thread (pyproject.toml:4) on sm_90"]


MATMUL = '''import triton
import triton.language as tl


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :])
    b = tl.load(b_ptr + r[:, None] * BLOCK + r[None, :])
    acc = tl.dot(a, b)
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)


TTINSPECT_EXAMPLES = {"tile": {"kernel": mm, "signature": "*fp16:16, *fp16:16, *fp32:16", "config": {"BLOCK": 64}}}
'''


@pytest.mark.slow
def test_an_ieee_dot_is_named_end_to_end(tmp_path):
    """The regression the issue names, compiled: `.to(tl.float32)` operands with input_precision="ieee"."""
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "mm.py").write_text(MATMUL)
    (tmp_path / "pyproject.toml").write_text('[tool.ttinspect]\nkernels = ["ops/*.py"]\ntargets = ["sm_90"]\n')
    env = {"TTINSPECT_CACHE_DIR": str(tmp_path / "cache"), "TRITON_CACHE_DIR": str(tmp_path / "triton"),
           "NO_COLOR": "1", "COLUMNS": "300"}
    run_process("snapshot", cwd=tmp_path, env=env, check=True)
    source = (tmp_path / "ops" / "mm.py").read_text()
    (tmp_path / "ops" / "mm.py").write_text(
        source.replace("tl.dot(a, b)", 'tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision="ieee")'))
    done = run_process("snapshot", "--check", "--format", "json", cwd=tmp_path, env=env)
    assert done.returncode == 1, done.stderr
    lost = next(r for r in json.loads(done.stdout)["results"] if r["rule"] == "regression/tensor-core-path")
    assert 'input_precision="ieee"' in lost["detail"] and ".to(tl.float32)" in lost["fix"]
    assert lost["line"] == 10  # the dot's line: inside the pull request's diff

"""The annotation on the line that changed what changed (issue 41): a changed entry's result is placed at the
`triton.Config(...)` line, the constexpr's default, the example's declaration, or the changed fact's own line,
instead of the kernel's `def` — in SARIF, JSON and Markdown alike; where it cannot tell, the def, saying why."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from cli_helpers import run_process
from test_ci_formats import validate_sarif
from ttinspect.snapshot.gate import gate
from ttinspect.snapshot.origin import origin
from ttinspect.snapshot.sources import body_tokens, fingerprint

SOURCE = Path(__file__).parent / "data" / "user_kernels" / "my_mm.py"
PYPROJECT = ('[tool.ttinspect]\nkernels = ["mylib/ops/*.py"]\ntargets = ["sm_80"]\n'
             'guard = ["spills", "pipeline_depth", "tensor_core_path", "occupancy", "shared_memory", "registers"]\n')


def _line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.fixture
def library(tmp_path):
    """my_mm.py with two of its examples: the autotuned matmul's first config, and the plain kernel's default."""
    ops = tmp_path / "mylib" / "ops"
    ops.mkdir(parents=True)
    text = SOURCE.read_text()
    declared = text[text.index("TTINSPECT_EXAMPLES = {"):]
    kept = ('TTINSPECT_EXAMPLES = {\n'
            '    "small": {"kernel": matmul, "args": square_args(1024), "autotune_config": 1},\n'
            '    "add": {"kernel": add_kernel, "signature": "*fp32:16, *fp32:16, *fp32:16, i32:16"},\n}\n')
    (ops / "mm.py").write_text(text.replace(declared, kept))
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    run_process("snapshot", cwd=tmp_path, check=True)
    return tmp_path


def test_a_config_line_and_a_constexpr_default_are_annotated_where_they_changed(library):
    kernel = library / "mylib" / "ops" / "mm.py"
    text = kernel.read_text()
    first = 'triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=3)'
    assert text.count(first) == 1
    text = text.replace(first, first.replace("num_stages=3", "num_stages=1"))
    text = text.replace("BLOCK: tl.constexpr = 1024", "BLOCK: tl.constexpr = 8192")
    kernel.write_text(text)
    config_line, default_line = _line_of(kernel, "num_stages=1)"), _line_of(kernel, "BLOCK: tl.constexpr = 8192")

    sarif = run_process("snapshot", "--check", "--format", "sarif", cwd=library)
    assert sarif.returncode == 1, sarif.stderr
    log = json.loads(sarif.stdout)
    validate_sarif(log)
    placed = [(r["ruleId"], r["locations"][0]["physicalLocation"]) for r in log["runs"][0]["results"]]
    (depth,) = [p for rule, p in placed if rule == "regression/pipeline-depth"]
    assert depth["artifactLocation"]["uri"].endswith("mylib/ops/mm.py")
    assert depth["region"]["startLine"] == config_line
    registers = [p["region"]["startLine"] for rule, p in placed if rule == "regression/registers"]
    assert default_line in registers

    report = json.loads(run_process("snapshot", "--check", "--format", "json", cwd=library).stdout)
    lines = {(r["entry"].split(":")[1].split("@")[0], r["rule"]): (r["file"], r["line"], r["detail"])
             for r in report["results"]}
    file, line, detail = lines[("small", "regression/pipeline-depth")]
    assert file.endswith("mylib/ops/mm.py") and line == config_line
    assert "the autotune config this entry compiles (num_stages 3 → 1)" in detail
    file, line, detail = lines[("add", "regression/registers")]
    assert line == default_line and "the default of BLOCK on the def (BLOCK 1024 → 8192)" in detail
    markdown = run_process("snapshot", "--check", "--format", "markdown", "--neutral", cwd=library).stdout
    assert f"mm.py:{config_line}" in markdown and f"mm.py:{default_line}" in markdown


def _entry(facts: dict, sources: dict | None = None, places: dict | None = None, dots: list | None = None) -> dict:
    base = {"kernel": "mm.py:matmul", "target": "sm_90", "file": "ops/mm.py", "line": 17,
            "facts": {"registers": 96, "spills": 0, "pipeline_depth": 3, "loop_depths": [3],
                      "block_sizes": [["BLOCK_M", 64], ["BLOCK_K", 32]], "num_warps": 4, "num_stages": 3,
                      "tensor_core_path": "wgmma", **facts}, "findings": []}
    if sources is not None:
        base["sources"] = sources
    base["evidence"] = {"dots": dots or [], "places": {
        "kernel_file": "ops/mm.py", "defaults": {"BLOCK_K": 18}, "example": {"file": "ops/mm.py", "line": 60},
        "loops": [{"line": 27, "depth": facts.get("pipeline_depth", 3), "dots": 1}], **(places or {})}}
    return base


SOURCES = {"body": "b0", "call": "c0"}
CONFIG = {"config": {"file": "ops/configs.py", "line": 9, "keys": ["BLOCK_M", "num_stages", "num_warps"]}}


@pytest.mark.parametrize("fact, old, new, where, says", [
    # the autotune config's line (in another file of the library), for a value it sets
    ("pipeline_depth", _entry({}, SOURCES), _entry({"pipeline_depth": 1, "num_stages": 1}, SOURCES, CONFIG),
     ("ops/configs.py", 9), "the autotune config this entry compiles (num_stages 3 → 1)"),
    # a constexpr the def's default gives
    ("registers", _entry({}, SOURCES), _entry({"registers": 128, "block_sizes": [["BLOCK_M", 64], ["BLOCK_K", 64]]},
                                              SOURCES), ("ops/mm.py", 18), "the default of BLOCK_K on the def"),
    # the launch's argument types: the example's declaration
    ("tensor_core_path", _entry({}, SOURCES), _entry({"tensor_core_path": "none"}, {**SOURCES, "call": "c1"}),
     ("ops/mm.py", 60), "the launch's arguments"),
    # the body: the fact's own line (the dot's, from the TTIR; the loop's for a pipeline depth)
    ("tensor_core_path", _entry({}, SOURCES), _entry({"tensor_core_path": "none"}, {**SOURCES, "body": "b1"},
                                                     dots=[{"a": "f32", "b": "f32", "python_line": 29}]),
     ("ops/mm.py", 29), "the kernel's body changed since the snapshot; annotated at its own line"),
    ("pipeline_depth", _entry({}, SOURCES), _entry({"pipeline_depth": 2}, {**SOURCES, "body": "b1"}),
     ("ops/mm.py", 27), "annotated at its own line"),
    # the body, and a fact with no line of its own: the def
    ("spills", _entry({}, SOURCES), _entry({"spills": 12}, {**SOURCES, "body": "b1"}), ("ops/mm.py", 17),
     "the kernel's body changed since the snapshot; annotated on the def"),
    # two pieces at two lines: which one caused it is not known
    ("spills", _entry({}, SOURCES), _entry({"spills": 12, "num_stages": 4}, {**SOURCES, "call": "c1"}, CONFIG),
     ("ops/mm.py", 17), "several pieces of this entry changed since the snapshot"),
    # an entry from a snapshot without fingerprints
    ("spills", _entry({}), _entry({"spills": 12}, SOURCES), ("ops/mm.py", 17), "records no source fingerprints"),
    # nothing of the entry's own changed
    ("spills", _entry({}, SOURCES), _entry({"spills": 12}, SOURCES), ("ops/mm.py", 17),
     "nothing in this entry's own source changed"),
    # an autotuned entry whose config the file builds by code: the def, saying why
    ("pipeline_depth", _entry({}, SOURCES), _entry({"pipeline_depth": 1, "num_stages": 1}, SOURCES,
                                                   {"config": {"why": "no triton.Config call spells it"}}),
     ("ops/mm.py", 17), "no triton.Config call spells it, so the annotation stays on the def"),
])
def test_the_line_a_change_is_annotated_at(fact, old, new, where, says):
    placed = origin(fact, old, new)
    assert (placed.file, placed.line) == where and says in placed.said


def test_the_gate_places_each_result_and_says_where_in_its_detail():
    old = {"ops/mm.py:a@sm_90": _entry({}, SOURCES)}
    new = {"ops/mm.py:a@sm_90": _entry({"pipeline_depth": 1, "num_stages": 1}, SOURCES, CONFIG)}
    report = gate({"entries": old}, new, fail_on="error", guard=("pipeline_depth",))
    result = next(r for r in report.results if r.rule == "regression/pipeline-depth")
    assert (result.file, result.line) == ("ops/configs.py", 9)
    assert "Where: annotated at ops/configs.py:9, the autotune config" in result.detail


def _function(text: str) -> tuple[ast.FunctionDef, str]:
    node = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef))
    return node, text


BODY = 'def k(x):\n    """doc"""\n    y = x + 1  # one\n\n    return f"{y + 1}"\n'


@pytest.mark.parametrize("edited, same", [
    ('def k(x):\n    y = x + 1\n    return f"{y + 1}"\n', True),  # docstring, comment and blank line: no change
    ('\n\n# moved down\ndef k(x, z=3):\n    """other"""\n    y = x  +  1\n    return f"{y + 1}"\n', True),
    ('def k(x):\n    y = x + 2\n    return f"{y + 1}"\n', False),
    ('def k(x):\n    y = x + 1\n    return f"{y + 2}"\n', False),
])
def test_the_body_fingerprint_is_the_code_not_its_layout(edited, same):
    assert (fingerprint(body_tokens(*_function(BODY))) == fingerprint(body_tokens(*_function(edited)))) is same


def test_an_old_snapshot_without_fingerprints_still_checks(tmp_path):
    """A snapshot written before `sources` existed reads, checks, and is rewritten with them on --update."""
    ops = tmp_path / "mylib" / "ops"
    ops.mkdir(parents=True)
    shutil.copyfile(SOURCE, ops / "mm.py")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.replace('kernels = ["mylib/ops/*.py"]',
                                                               'kernels = ["mylib/ops/*.py"]\nstrict = true'))
    run_process("snapshot", cwd=tmp_path, check=True)
    path = tmp_path / "ttinspect.snapshot.json"
    document = json.loads(path.read_text())
    assert all(entry.get("sources", {}).get("body") for entry in document["entries"].values())
    for entry in document["entries"].values():
        del entry["sources"]
    path.write_text(json.dumps(document))
    done = run_process("snapshot", "--check", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr  # strict, and yet no fingerprint is a difference


def test_strict_mode_fails_a_neutral_config_edit_where_it_was_made():
    from ttinspect.snapshot.strictness import strict_results

    old = {"ops/mm.py:a@sm_90": _entry({}, SOURCES)}
    new = {"ops/mm.py:a@sm_90": _entry({"block_sizes": [["BLOCK_M", 128], ["BLOCK_K", 32]]}, SOURCES, CONFIG)}
    report = strict_results(gate({"entries": old}, new, fail_on="error", guard=("spills",)))
    (stale,) = [r for r in report.results if r.rule == "snapshot/stale"]
    assert (stale.file, stale.line) == ("ops/configs.py", 9)

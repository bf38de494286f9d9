"""`ttinspect snapshot`: a library's kernels in one committed file, and the gate against it — through the real
CLI on a small library made from tests/data/user_kernels/my_mm.py (an autotuned matmul and an add)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_process

from ttinspect.ci.model import IMPROVED, NEUTRAL, REGRESSED
from ttinspect.snapshot import classify
from ttinspect.snapshot.gate import gate

from test_toolchains import other  # noqa: F401  (the fixture: another Triton release, ready to compile with)

SOURCE = Path(__file__).parent / "data" / "user_kernels" / "my_mm.py"
PYPROJECT = """[tool.ttinspect]
kernels = ["mylib/ops/*.py"]
targets = ["sm_80"]
fail-on = "warning"
"""


def run_plain(*argv: str, cwd: Path, check: bool = False) -> subprocess.CompletedProcess:
    """`ttinspect ARGV` in `cwd` as a process, 120 columns and no colour: the text a CI log shows."""
    return run_process(*argv, cwd=cwd, check=check, env={"COLUMNS": "120", "NO_COLOR": "1"})


@pytest.fixture
def library(tmp_path):
    root = tmp_path / "lib"
    (root / "mylib" / "ops").mkdir(parents=True)
    shutil.copyfile(SOURCE, root / "mylib" / "ops" / "mm.py")
    (root / "pyproject.toml").write_text(PYPROJECT)
    return root


# Two edits a library makes by mistake: a config that loses its pipelining, a register cap that spills
# (maxnreg=96 on sm_80: spills on Triton 3.6 and 3.9).
UNPIPELINED = ('num_warps=4, num_stages=3),\n    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64',
               'num_warps=4, num_stages=1),\n    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64')
SPILLING = '"autotune_config": 3, "config": {"maxnreg": 96},'


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_snapshot_then_check_unchanged_then_two_regressions(library):
    made = run_plain("snapshot", cwd=library, check=True)
    assert "3 entries" in made.stdout
    snapshot = library / "ttinspect.snapshot.json"
    document = json.loads(snapshot.read_text())
    assert sorted(document["entries"]) == ["mylib/ops/mm.py:add@sm_80", "mylib/ops/mm.py:big@sm_80",
                                           "mylib/ops/mm.py:small@sm_80"]
    small = document["entries"]["mylib/ops/mm.py:small@sm_80"]
    assert small["file"] == "mylib/ops/mm.py" and small["line"] == 17 and small["facts"]["pipeline_depth"] >= 2
    committed = snapshot.read_text()
    run_plain("snapshot", cwd=library, check=True)
    assert snapshot.read_text() == committed  # the same library, the same bytes (warm: nothing compiled)
    clean = run_plain("snapshot", "--check", cwd=library)
    assert clean.returncode == 0 and clean.stdout.startswith("ok: 3 entries, nothing changed"), clean.stdout
    # one kernel loses its pipelining, another spills
    ops = library / "mylib" / "ops" / "mm.py"
    _edit(ops, *UNPIPELINED)
    _edit(ops, '"autotune_config": 3,', SPILLING)
    gated = run_plain("snapshot", "--check", cwd=library)
    assert gated.returncode == 1, gated.stdout + gated.stderr
    assert gated.stdout.startswith("FAIL: 2 of 3 entries"), gated.stdout
    # each at the line that changed it (docs/ci.md): the autotune config's, the example's that sets maxnreg
    lines = ops.read_text().splitlines()
    config = 1 + next(n for n, line in enumerate(lines) if "num_stages=1)" in line)
    example = 1 + next(n for n, line in enumerate(lines) if '"big":' in line)
    assert re.search(rf"mylib/ops/mm.py:small@sm_80: pipeline depth: \d → 1 on sm_80 \(mylib/ops/mm.py:{config}\)",
                     gated.stdout), gated.stdout
    assert re.search(rf"mylib/ops/mm.py:big@sm_80: spills: local memory 0 → [^\n]*\n?\s*\(mylib/ops/mm.py:{example}\)",
                     gated.stdout), gated.stdout
    assert snapshot.read_text() == committed  # --check writes nothing
    junit = run_plain("snapshot", "--check", "--format", "junit", cwd=library)
    import xml.etree.ElementTree as ElementTree

    cases = {case.get("name"): case for case in ElementTree.fromstring(junit.stdout).iter("testcase")}
    assert junit.returncode == 1 and set(cases) == {"mylib/ops/mm.py:add@sm_80", "mylib/ops/mm.py:big@sm_80",
                                                    "mylib/ops/mm.py:small@sm_80"}
    assert [name for name, case in cases.items() if case.find("failure") is not None] == \
        ["mylib/ops/mm.py:big@sm_80", "mylib/ops/mm.py:small@sm_80"]
    # --update accepts the changes: they are in the snapshot now, so it exits 0 and says what it accepted, never
    # "FAIL" (issue 41: it printed FAIL and exited 0; then FAIL and exit 1 for changes it had just accepted)
    updated = run_plain("snapshot", "--check", "--update", cwd=library)
    assert updated.returncode == 0 and "FAIL" not in updated.stdout, updated.stdout
    assert updated.stdout.startswith("ok: 3 entries, 2 changed, none regressed (") and "accepted" in updated.stdout
    assert "accepted 2 changes: mylib/ops/mm.py:big@sm_80, mylib/ops/mm.py:small@sm_80" in updated.stderr
    assert run_plain("snapshot", "--check", cwd=library).returncode == 0


@pytest.mark.parametrize("key, old, new, expected", [
    ("spills", 0, 24, REGRESSED), ("spills", 24, 0, IMPROVED),
    ("pipeline_depth", 3, 1, REGRESSED), ("pipeline_depth", 3, None, REGRESSED), ("pipeline_depth", 2, 4, IMPROVED),
    ("tensor_core_path", "wgmma", "mma.sync", REGRESSED), ("tensor_core_path", "mma.sync", "tcgen05", IMPROVED),
    ("tensor_core_path", "mfma", "mma.sync", NEUTRAL),
    ("occupancy", "50%", "25%", REGRESSED), ("occupancy", "25%", "50%", IMPROVED),
    ("fits", True, False, REGRESSED), ("fits", False, True, IMPROVED),
    ("registers", 40, 80, NEUTRAL), ("num_warps", 4, 8, NEUTRAL),
])
def test_the_guard_rules(key, old, new, expected):
    assert classify(key, old, new) == expected


def _entry(**facts):
    return {"kernel": "k.py:k", "target": "sm_90", "file": "k.py", "line": 3, "facts": facts, "findings": []}


def test_a_regression_not_guarded_is_neutral_and_findings_gate_at_fail_on():
    committed = {"entries": {"k.py:a@sm_80": _entry(spills=0, pipeline_depth=3)}}
    now = {"k.py:a@sm_80": {**_entry(spills=8, pipeline_depth=3),
                            "findings": [{"id": "TTI005", "severity": "info", "title": "narrow", "line": 9}]}}
    report = gate(committed, now, fail_on="warning", guard=("pipeline_depth",))
    assert not report.failed and [r.status for r in report.results] == [NEUTRAL, "finding"]
    report = gate(committed, now, fail_on="info", guard=("spills", "findings"))
    assert report.failed and {r.status for r in report.results} == {REGRESSED}
    assert [r.line for r in report.results] == [3, 9]


def test_new_removed_and_failing_entries():
    committed = {"entries": {"k.py:gone@sm_80": _entry(), "k.py:broken@sm_80": _entry()}}
    now = {"k.py:new@sm_80": _entry(), "k.py:broken@sm_80": {"error": "k.py:4: Triton could not compile"}}
    report = gate(committed, now, fail_on="error", guard=("spills",))
    assert {e.key: e.status for e in report.entries} == {"k.py:broken@sm_80": "failed", "k.py:gone@sm_80": "removed",
                                                         "k.py:new@sm_80": "new"}
    assert report.failed


@pytest.mark.parametrize("pyproject, says", [
    ("", "no [tool.ttinspect] table"),
    ("[tool.ttinspect]\nkernels = ['nothing/*.py']\n", "matches no Python file"),
    ("[tool.ttinspect]\nkernels = ['mylib/ops/*.py']\nguard = ['spils']\n", "'spils': not a guard"),
    ("[tool.ttinspect]\nkernels = ['mylib/ops/*.py']\nfail-on = 'loud'\n", "fail-on = 'loud'"),
    ("[tool.ttinspect]\nkernels = ['mylib/ops/*.py']\ntargets = ['sm_999']\n", "sm_999"),
    ("[tool.ttinspect]\nkernels = ['mylib/ops/*.py']\nkernel = 1\n", "unknown key(s) kernel"),
    ("[tool.ttinspect\n", "not valid TOML"),
    ("[tool.ttinspect]\nkernels = ['mylib.ops.attn']\n", "give file globs"),
])
def test_a_bad_configuration_is_one_line(library, pyproject, says):
    (library / "pyproject.toml").write_text(pyproject)
    done = run_plain("snapshot", cwd=library)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    assert not (library / "ttinspect.snapshot.json").exists()


@pytest.mark.parametrize("content, says", [
    (None, "no snapshot yet"), ("{not json", "not JSON"), ('{"a": 1}', "no format key"),
    ('{"format": "ttinspect-snapshot/0", "entries": {}}', "this ttinspect reads ttinspect-snapshot/1"),
])
def test_a_missing_or_damaged_snapshot_is_one_line(library, content, says):
    if content is not None:
        (library / "ttinspect.snapshot.json").write_text(content)
    done = run_plain("snapshot", "--check", cwd=library)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and says in done.stderr, done.stderr


def test_the_snapshot_never_replaces_a_file_it_did_not_write(library):
    mine = library / "ttinspect.snapshot.json"
    mine.write_text('{"my": "data"}\n')
    done = run_plain("snapshot", cwd=library)
    assert done.returncode == 2 and "not a snapshot ttinspect wrote" in done.stderr
    assert mine.read_text() == '{"my": "data"}\n'
    mine.unlink()
    mine.symlink_to(library / "pyproject.toml")
    done = run_plain("snapshot", cwd=library)
    assert done.returncode == 2 and "symbolic link" in done.stderr
    assert (library / "pyproject.toml").read_text() == PYPROJECT


# --- where it plugs in: the GitHub Action's steps and the pre-commit hook -------------------------------

ROOT = Path(__file__).resolve().parent.parent


def _action_steps() -> list[dict]:
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    return action["runs"]["steps"]


def _run_action(library: Path, tmp: Path) -> tuple[int, dict[str, str], Path]:
    """The action's steps as GitHub's runner runs them (tests/test_gate_action.py's Runner: each step's shell as
    `bash --noprofile --norc -eo pipefail`, its `if:` evaluated); the checkout is the library's parent."""
    from test_gate_action import Runner

    runner = Runner(library.parent, tmp, {"working-directory": library.name})
    code = runner.run()
    return code, runner.outputs["gate"], runner.summary


def test_the_action_gates_a_library(library, tmp_path):
    run_plain("snapshot", cwd=library, check=True)
    code, outputs, summary = _run_action(library, tmp_path)
    assert code == 0 and outputs["status"] == "0"
    sarif = json.loads((library / "ttinspect.sarif").read_text())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"] == []
    assert summary.read_text().strip()
    _edit(library / "mylib" / "ops" / "mm.py", '"autotune_config": 3,', SPILLING)
    code, outputs, summary = _run_action(library, tmp_path)
    assert code == 1 and outputs["status"] == "1"
    results = json.loads((library / "ttinspect.sarif").read_text())["runs"][0]["results"]
    spill = [r for r in results if r["ruleId"] == "regression/spills"]
    location = spill[0]["locations"][0]["physicalLocation"] if spill else {}
    assert location["artifactLocation"] == {"uri": "lib/mylib/ops/mm.py", "uriBaseId": "%SRCROOT%"}
    assert {r["ruleId"] for r in results} <= {"regression/spills", "TTI003"}  # code scanning: what fails or warns
    assert "mylib/ops/mm.py:big@sm_80" in summary.read_text()


def test_the_pre_commit_hook_checks_the_files_a_commit_touches(library, tmp_path):
    if shutil.which("pre-commit") is None or shutil.which("git") is None:
        pytest.skip("pre-commit (pip install pre-commit) and git are needed")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit"), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(tmp_path)}

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(argv, cwd=library, env=env, capture_output=True, text=True, timeout=600)

    run_plain("snapshot", cwd=library, check=True)
    assert run("git", "init", "-q").returncode == 0
    run("git", "add", "-A")
    assert run("git", "commit", "-q", "-m", "library").returncode == 0
    # the hook's repository: this one's manifest, committed (try-repo reads committed files; `language:
    # system` needs nothing else from it)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    shutil.copyfile(ROOT / ".pre-commit-hooks.yaml", hooks / ".pre-commit-hooks.yaml")
    for argv in (("git", "init", "-q"), ("git", "add", "-A"), ("git", "commit", "-q", "-m", "hooks")):
        assert subprocess.run(argv, cwd=hooks, env=env, capture_output=True).returncode == 0
    hook = ("pre-commit", "try-repo", str(hooks), "ttinspect-snapshot", "--files")
    clean = run(*hook, "mylib/ops/mm.py", "pyproject.toml")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    _edit(library / "mylib" / "ops" / "mm.py", *UNPIPELINED)
    untouched = run(*hook, "pyproject.toml")  # the kernel file is not among the commit's: nothing to gate
    assert untouched.returncode == 0, untouched.stdout + untouched.stderr
    gated = run(*hook, "mylib/ops/mm.py")
    assert gated.returncode == 1 and "pipeline depth" in gated.stdout, gated.stdout + gated.stderr


def test_the_upgrade_gate_compiles_with_another_triton(library, other):  # noqa: F811
    """`--check --triton X`: the committed snapshot (this Triton) against the kernels as X compiles them —
    every entry compared, none failing to compile, the report naming X."""
    run_plain("snapshot", cwd=library, check=True)
    done = run_plain("snapshot", "--check", "--triton", other, "--format", "json", cwd=library)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    assert report["triton_version"] == other and len(report["entries"]) == 3
    assert not [e for e in report["entries"] if e["status"] == "failed"], report["entries"]
    # keyed by release when asked: `snapshot --triton X` adds X's entries beside the snapshot's own
    run_plain("snapshot", "--triton", other, cwd=library, check=True)
    document = json.loads((library / "ttinspect.snapshot.json").read_text())
    assert len(document["entries"]) == 6 and "mylib/ops/mm.py:small@sm_80#triton=" + other in document["entries"]
    assert document["triton_version"] != other  # the snapshot's own entries are still this Triton's
    for argv in (("--triton", other), ()):  # each compared with its own release's entries
        done = run_plain("snapshot", "--check", *argv, cwd=library)
        assert done.returncode == 0 and "nothing changed" in done.stdout, done.stdout + done.stderr



@pytest.mark.ray
def test_a_big_matrix_on_ray(library):
    """`--executor ray`: the cold entries as Ray tasks (a local Ray here), the same snapshot as the pool's."""
    import tempfile

    pytest.importorskip("ray")
    ray_tmp = tempfile.mkdtemp(prefix="tt-ray-")  # short (Ray's sockets) and removed: nothing in /tmp/ray or ~/.ray
    try:
        env = {**os.environ, "RAY_TMPDIR": ray_tmp, "RAY_AUTH_MODE": "disabled",
               "TTINSPECT_CACHE_DIR": str(library / "ray-cache")}
        done = subprocess.run([sys.executable, "-m", "ttinspect", "snapshot", "--executor", "ray", "-j", "2"],
                              cwd=library, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0 and "3 entries" in done.stdout, done.stderr
        by_ray = (library / "ttinspect.snapshot.json").read_text()
        pooled = subprocess.run([sys.executable, "-m", "ttinspect", "snapshot", "--check"], cwd=library,
                                capture_output=True, text=True, timeout=600)
        assert pooled.returncode == 0 and "nothing changed" in pooled.stdout, pooled.stdout
        assert (library / "ttinspect.snapshot.json").read_text() == by_ray
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)


def test_files_select_the_entries_declared_in_them_and_in_files_importing_them(library, tmp_path):
    """A commit that touches FILEs gates the entries of the examples files among them or importing one of
    them — by where an entry is declared, not where its kernel is defined — and never drops the others."""
    ops = library / "mylib" / "ops"
    (ops / "wrappers.py").write_text(
        'from mm import add_kernel\n\nTTINSPECT_EXAMPLES = {"add2": {"kernel": add_kernel, '
        '"signature": "*fp32:16, *fp32:16, *fp32:16, i32:16", "config": {"BLOCK": 256}}}\n')
    run_plain("snapshot", cwd=library, check=True)
    committed = (library / "ttinspect.snapshot.json").read_text()
    assert "mylib/ops/wrappers.py:add2@sm_80" in committed
    # from the repository's root, as a hook runs: the library's pyproject.toml is found from the files
    only_wrappers = run_plain("snapshot", "--check", "--format", "json", "lib/mylib/ops/wrappers.py", cwd=tmp_path)
    assert only_wrappers.returncode == 0, only_wrappers.stderr
    assert [e["key"] for e in json.loads(only_wrappers.stdout)["entries"]] == ["mylib/ops/wrappers.py:add2@sm_80"]
    # mm.py is imported by wrappers.py: touching it gates both files' entries
    both = run_plain("snapshot", "--check", "--format", "json", "lib/mylib/ops/mm.py", cwd=tmp_path)
    assert len(json.loads(both.stdout)["entries"]) == 4 and both.returncode == 0
    run_plain("snapshot", "mylib/ops/wrappers.py", cwd=library, check=True)  # rewrites only that file's entries
    assert (library / "ttinspect.snapshot.json").read_text() == committed


def test_a_kernel_that_stops_compiling_keeps_its_committed_entry(library):
    run_plain("snapshot", cwd=library, check=True)
    committed = (library / "ttinspect.snapshot.json").read_text()
    ops = library / "mylib" / "ops" / "mm.py"
    _edit(ops, '"add": {"kernel": add_kernel,', '"add": {"kernel": add_kernel, "config": {"BLOCK": 1000},')
    made = run_plain("snapshot", cwd=library)
    assert made.returncode == 1 and "failed: mylib/ops/mm.py:add@sm_80" in made.stderr
    assert (library / "ttinspect.snapshot.json").read_text() == committed  # never an error recorded as facts
    gated = run_plain("snapshot", "--check", cwd=library)
    assert gated.returncode == 1 and "no longer compiles" in gated.stdout
    # accepting keeps the committed entry of what failed, and does not say it accepted it
    updated = run_plain("snapshot", "--check", "--update", cwd=library)
    assert updated.returncode == 1 and "mylib/ops/mm.py:add@sm_80" not in updated.stderr.split("accepted", 1)[-1]
    assert (library / "ttinspect.snapshot.json").read_text() == committed
    _edit(ops, ', "config": {"BLOCK": 1000},', ',')
    assert run_plain("snapshot", "--check", cwd=library).returncode == 0


def test_fail_on_gates_findings_whatever_the_guard_list():
    committed = {"entries": {"k.py:a@sm_90": _entry(spills=0)}}
    now = {"k.py:a@sm_90": {**_entry(spills=0),
                            "findings": [{"id": "TTI003", "slug": "register-spills", "severity": "warning",
                                          "title": "spills", "line": 9}]}}
    report = gate(committed, now, fail_on="warning", guard=("pipeline_depth",))
    assert report.failed and [r.status for r in report.results] == [REGRESSED]
    assert report.rules[0].name == "register-spills" and "Registers spill" in report.rules[0].summary
    assert not gate(committed, now, fail_on="error", guard=()).failed


@pytest.mark.parametrize("key", ["kernels", "targets", "guard"])
def test_an_empty_list_is_refused(library, key):
    lines = {"kernels": '["mylib/ops/*.py"]', "targets": '["sm_80"]', "guard": '["spills"]'}
    lines[key] = "[]"
    (library / "pyproject.toml").write_text("[tool.ttinspect]\n" + "".join(f"{k} = {v}\n" for k, v in lines.items()))
    done = run_plain("snapshot", cwd=library)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and f"{key} = []" in done.stderr, done.stderr


def test_a_file_that_no_longer_loads_fails_its_own_entries_not_the_gate(library):
    run_plain("snapshot", cwd=library, check=True)
    # it declares examples (a file that declares none is never imported: tests/hostile/test_snapshot_untrusted.py)
    (library / "mylib" / "ops" / "broken.py").write_text("import triton\nTTINSPECT_EXAMPLES = {}\nx = 1 / 0\n")
    gated = run_plain("snapshot", "--check", cwd=library)
    assert gated.returncode == 1, gated.stderr
    assert "mylib/ops/broken.py:*@sm_80: importing" in gated.stdout and "ZeroDivisionError" in gated.stdout
    assert gated.stdout.startswith("FAIL: 1 of 4 entries")  # the others were still checked

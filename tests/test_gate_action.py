"""action.yml as GitHub's runner runs it (issue 41): each `run` step's shell exactly as the runner invokes it —
its script in a file, `bash --noprofile --norc -eo pipefail FILE`, in the step's working-directory, with the step's
env — after every `${{ }}` expression is substituted from a context (an expression the harness does not know fails
the test, so none goes untested) and each step's `if:` is evaluated. The `uses:` steps are GitHub's own; what this
action gives them (the cache key, the SARIF file, continue-on-error) is checked here.

No network: `python -m pip` and `gh` are stand-ins on PATH that record what they were asked (the real python runs
everything else), so the install step's Triton pin and the comment's update in place are checked too.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from test_ci_formats import validate_sarif

pytest.importorskip("yaml")

from action_runner import ROOT, Runner, action  # noqa: E402  (needs yaml: skipped above where it is absent)

SOURCE = Path(__file__).parent / "data" / "user_kernels" / "my_mm.py"
PYPROJECT = '[tool.ttinspect]\nkernels = ["mylib/ops/*.py"]\ntargets = ["sm_80"]\nfail-on = "warning"\n'


@pytest.fixture
def workspace(tmp_path):
    """A repository with the library in a subfolder (the action's working-directory), its snapshot committed."""
    from cli_helpers import run_process

    repo = tmp_path / "repo"
    ops = repo / "lib" / "mylib" / "ops"
    ops.mkdir(parents=True)
    shutil.copyfile(SOURCE, ops / "mm.py")
    (repo / "lib" / "pyproject.toml").write_text(PYPROJECT)
    (repo / "README.md").write_text("not a kernel\n")
    run_process("snapshot", cwd=repo / "lib", check=True)
    return repo


def _sarif(workspace: Path) -> dict:
    log = json.loads((workspace / "lib" / "ttinspect.sarif").read_text())
    validate_sarif(log)
    for result in log["runs"][0]["results"]:  # GitHub's upload refuses the whole file for one without
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], result
    return log


def test_the_action_gates_comments_in_place_and_pins_the_snapshots_triton(workspace, tmp_path):
    runner = Runner(workspace, tmp_path, {"working-directory": "lib", "comment": "true"})
    assert runner.run() == 0 and runner.outputs["gate"]["status"] == "0"
    release = json.loads((workspace / "lib" / "ttinspect.snapshot.json").read_text())["triton_version"]
    assert f"triton=={release}" in (tmp_path / "pip.log").read_text()  # pinned to what the snapshot was made with
    assert _sarif(workspace)["runs"][0]["results"] == []
    assert "ttinspect snapshot --check" in runner.summary.read_text()
    assert (tmp_path / "gh.log").read_text().split()[0] == "POST"  # the first push: a new comment
    # a regression on the next push: the same comment is updated, the SARIF places every result, exit 1
    text = (workspace / "lib" / "mylib" / "ops" / "mm.py").read_text()
    (workspace / "lib" / "mylib" / "ops" / "mm.py").write_text(
        text.replace('"autotune_config": 3,', '"autotune_config": 3, "config": {"maxnreg": 96},'))
    again = Runner(workspace, tmp_path, {"working-directory": "lib", "comment": "true"})
    assert again.run() == 1 and again.outputs["gate"]["status"] == "1"
    assert (tmp_path / "gh.log").read_text().splitlines()[-1].split() == ["PATCH", "repos/o/lib/issues/comments/77"]
    results = _sarif(workspace)["runs"][0]["results"]
    spill = next(r for r in results if r["ruleId"] == "regression/spills")
    assert spill["level"] == "error" and "B per thread" in spill["message"]["text"]
    assert spill["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "lib/mylib/ops/mm.py",
                                                                          "uriBaseId": "%SRCROOT%"}
    assert next(r for r in results if r["ruleId"] == "TTI003")["level"] == "warning"  # a new warning: a warning
    assert "lib/mylib/ops/mm.py" in (workspace / "lib" / "ttinspect-report.md").read_text()


def test_the_cache_is_keyed_by_the_kernels_content_and_the_release(workspace, tmp_path):
    def key() -> str:
        runner = Runner(workspace, tmp_path, {"working-directory": "lib", "upload-sarif": "false"},
                        event="push")  # on the default branch: the cache every pull request restores
        runner.run()
        (cache,) = [step for step in runner.uses if step["uses"].startswith("actions/cache@")]
        assert "Comment on the pull request (one comment, updated in place)" in runner.skipped  # not a PR
        return cache["with"]["key"]

    first = key()
    assert "github.sha" not in (ROOT / "action.yml").read_text()
    assert first.startswith("ttinspect-Linux-triton-3.") and re.search(r"-[0-9a-f]{32}$", first)
    (workspace / "README.md").write_text("still not a kernel\n")
    assert key() == first  # a file that is no kernel changes nothing
    ops = workspace / "lib" / "mylib" / "ops" / "mm.py"
    ops.write_text(ops.read_text() + "\n# edited\n")
    assert key() != first


def test_a_run_that_stops_on_bad_input_still_writes_both_reports(workspace, tmp_path):
    (workspace / "lib" / "pyproject.toml").write_text(PYPROJECT + "gaurd = ['spills']\n")
    runner = Runner(workspace, tmp_path, {"working-directory": "lib"})
    assert runner.run() == 2 and runner.outputs["gate"]["status"] == "2"
    log = _sarif(workspace)
    (result,) = log["runs"][0]["results"]
    assert "unknown key(s) gaurd" in result["message"]["text"]
    place = result["locations"][0]["physicalLocation"]
    assert place["artifactLocation"]["uri"] == "lib/pyproject.toml" and place["region"]["startLine"] == 5
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is False
    assert "unknown key(s) gaurd" in runner.summary.read_text()


def test_uploads_and_comments_never_fail_a_gate_that_passed():
    """A fork's pull request gets a read-only token: upload-sarif and the comment answer 403."""
    steps = action()["runs"]["steps"]
    upload = next(s for s in steps if str(s.get("uses", "")).startswith("github/codeql-action/upload-sarif"))
    comment = next(s for s in steps if "Comment" in s.get("name", ""))
    assert upload.get("continue-on-error") is True and comment.get("continue-on-error") is True
    docs = (ROOT / "docs" / "ci.md").read_text()
    for permission in ("security-events: write", "actions: read", "pull-requests: write"):
        assert permission in docs

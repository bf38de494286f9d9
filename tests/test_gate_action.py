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
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from test_ci_formats import validate_sarif

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parent.parent
SOURCE = Path(__file__).parent / "data" / "user_kernels" / "my_mm.py"
PYPROJECT = '[tool.ttinspect]\nkernels = ["mylib/ops/*.py"]\ntargets = ["sm_80"]\nfail-on = "warning"\n'
_EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")


def action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


class Runner:
    """One job's run of the action's steps, as the runner would make it."""

    def __init__(self, workspace: Path, tmp: Path, inputs: dict[str, str], event: str = "pull_request"):
        self.workspace, self.tmp = workspace, tmp
        spec = action()
        self.inputs = {name: str(s.get("default", "")) for name, s in spec["inputs"].items()} | inputs
        self.steps = spec["runs"]["steps"]
        self.outputs: dict[str, dict[str, str]] = {}
        self.context = {"github.action_path": str(ROOT), "github.token": "t0ken", "github.repository": "o/lib",
                        "github.event.pull_request.number": "7", "github.event_name": event,
                        "runner.os": "Linux"}
        self.summary = tmp / "summary.md"
        self.summary.write_text("")
        self.bin = tmp / "bin"
        self.bin.mkdir(exist_ok=True)
        _stand_ins(self.bin)
        self.status: int | None = None
        self.skipped: list[str] = []
        self.uses: list[dict] = []

    def value(self, name: str) -> str:
        if name.startswith("inputs."):
            return self.inputs[name[len("inputs."):]]
        if name.startswith("steps."):
            _, step, _, output = name.split(".", 3)
            return self.outputs.get(step, {}).get(output, "")
        if name in self.context:
            return self.context[name]
        raise AssertionError(f"action.yml uses ${{{{ {name} }}}}, which this harness does not give")

    def expand(self, text: str) -> str:
        return _EXPRESSION.sub(lambda m: self.value(m[1]), text)

    def condition(self, expression: str | None) -> bool:
        """The `if:`s action.yml writes: terms joined by &&, each always() or NAME ==/!= 'literal'."""
        if expression is None:
            return True
        for term in (t.strip() for t in expression.split("&&")):
            if term == "always()":
                continue
            found = re.fullmatch(r"([\w.-]+) (==|!=) '([^']*)'", term)
            assert found, f"an if: this harness cannot evaluate: {term!r}"
            if (self.value(found[1]) == found[3]) != (found[2] == "=="):
                return False
        return True

    def run(self) -> int:
        for index, step in enumerate(self.steps):
            if not self.condition(step.get("if")):
                self.skipped.append(step.get("name") or step.get("uses", ""))
                continue
            if "uses" in step:
                given = {k: self.expand(str(v)) for k, v in (step.get("with") or {}).items()}
                self.uses.append({**step, "with": given})
                continue
            self.status = self._shell(index, step)
        assert self.status is not None
        return self.status

    def _shell(self, index: int, step: dict) -> int:
        assert step.get("shell") == "bash", step  # the runner's bash: --noprofile --norc -eo pipefail {0}
        script = self.tmp / f"step-{index}.sh"
        script.write_text(self.expand(step["run"]))
        output = self.tmp / f"output-{index}.txt"
        output.write_text("")
        folder = self.workspace / self.expand(step.get("working-directory", "."))
        env = {**os.environ, "PATH": f"{self.bin}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}"
                                     f"{os.environ['PATH']}",
               "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(self.summary), "NO_COLOR": "1",
               "GITHUB_WORKSPACE": str(self.workspace), "REAL_PYTHON": sys.executable, "STAND_INS": str(self.tmp),
               **{k: self.expand(str(v)) for k, v in (step.get("env") or {}).items()}}
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=600)
        assert "Traceback" not in done.stderr, done.stderr
        if "id" in step:
            self.outputs[step["id"]] = dict(line.split("=", 1) for line in output.read_text().splitlines()
                                            if "=" in line)
        return done.returncode


def _stand_ins(folder: Path) -> None:
    """`python -m pip ...` recorded, never run (no network); any other python is the real one. `gh api` answers
    a comment list from a file of comments and records each write."""
    python = folder / "python"
    python.write_text('#!/bin/bash\nif [ "$1" = "-m" ] && [ "$2" = "pip" ]; then echo "$@" >> "$STAND_INS/pip.log"; '
                      'exit 0; fi\nexec "$REAL_PYTHON" "$@"\n')
    gh = folder / "gh"
    gh.write_text('#!/bin/bash\nif [ "$2" = "-X" ]; then echo "$3 $4" >> "$STAND_INS/gh.log"; '
                  'touch "$STAND_INS/commented"; exit 0; fi\n'
                  'if [ -f "$STAND_INS/commented" ]; then echo 77; fi\n')
    for tool in (python, gh):
        tool.chmod(tool.stat().st_mode | stat.S_IEXEC)


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

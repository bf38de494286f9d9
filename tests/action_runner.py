"""action.yml run as GitHub's runner runs it, for the tests (tests/test_gate_action.py) and the timing of the
documented workflow (benchmarks/gate_times.py): each `run` step's shell exactly as the runner invokes it — its script
in a file, `bash --noprofile --norc -eo pipefail FILE`, in the step's working-directory, with the step's env — after
every `${{ }}` expression is substituted from a context (an expression this harness does not know is refused, so
none goes unchecked) and each step's `if:` is evaluated. The `uses:` steps are GitHub's own: they are recorded with
what this action gives them, not run.

No network: `python -m pip` and `gh` are stand-ins on PATH that record what they were asked (the real python runs
everything else).
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
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

"""The CLI as the tests run it, and what they hold a refusal to: one meaning per name.

- `run_cli(*args, env=None)`: `ttinspect ARGS` in this process through click's CliRunner (fast; an exception
  is not caught, so a traceback fails the test); `run_cli_ok` also asserts exit 0 and returns the output.
- `run_process(*args, ...)`: `python -m ttinspect ARGS` as a real process (its own interpreter, imports, exit
  code and streams as a user gets them).
- A refusal's shape, asserted on a CliRunner result: `assert_one_line_error` (the whole output is one
  `ttinspect: error:` line), `assert_one_stderr_line_error` (stderr is exactly that one line; stdout may
  hold rows), `assert_error_first_line` (the output starts with it; the quoted source line or a list may
  follow), `assert_error_last_line` (progress lines may come first; the error line ends the output).

Named cli_helpers, not helpers: a test writes a user's `helpers.py` and imports it by that name.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from click.testing import CliRunner, Result

from ttinspect.cli.main import cli

ERROR = "ttinspect: error:"


def run_cli(*args: object, env: Mapping[str, str | None] | None = None) -> Result:
    """`ttinspect ARGS` through click's CliRunner; `env` is set (None: unset) for the command only."""
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False, env=env)


def run_cli_ok(*args: object, env: Mapping[str, str | None] | None = None) -> str:
    """The output of `ttinspect ARGS`, which must exit 0."""
    result = run_cli(*args, env=env)
    assert result.exit_code == 0, result.output
    return result.output


def run_process(*args: object, env: Mapping[str, str] | None = None, cwd: Path | None = None,
                check: bool = False, timeout: float = 600) -> subprocess.CompletedProcess:
    """`python -m ttinspect ARGS` in a process of its own, with this environment plus `env`; no traceback on
    stderr, and exit 0 too when `check`."""
    done = subprocess.run([sys.executable, "-m", "ttinspect", *map(str, args)], env={**os.environ, **(env or {})},
                          cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if check:
        assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done


def assert_one_line_error(result: Result, code: int, *fragments: str) -> str:
    """Exit `code`; the output is one non-blank line, `ttinspect: error: ...`, saying each fragment. Returns it."""
    assert result.exit_code == code, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(ERROR), result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def assert_one_stderr_line_error(result: Result, code: int, *fragments: str) -> str:
    """Exit `code`; stderr is exactly one line, `ttinspect: error: ...`, saying each fragment; no traceback
    anywhere. Returns the line."""
    assert result.exit_code == code, (result.exit_code, result.stderr, result.stdout[-500:])
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(ERROR + " "), result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def assert_error_first_line(result: Result, code: int, *fragments: str) -> str:
    """Exit `code`; the output starts with `ttinspect: error:` (more lines may follow), says each fragment, and
    holds no traceback. Returns the output."""
    assert result.exit_code == code, result.output
    assert result.output.startswith(ERROR) and "Traceback" not in result.output, result.output
    for fragment in fragments:
        assert fragment in result.output, result.output
    return result.output


def assert_error_last_line(result: Result, code: int, *fragments: str) -> str:
    """Exit `code`; the last non-blank line is `ttinspect: error: ...` saying each fragment (lines before it
    are progress); no traceback. Returns the line."""
    assert result.exit_code == code, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines and lines[-1].startswith(ERROR), result.output
    for fragment in fragments:
        assert fragment in lines[-1], result.output
    assert "Traceback" not in result.output
    return lines[-1]

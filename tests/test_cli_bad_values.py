"""Every option's bad values (tests/bad_values.py): one line on stderr, nothing on stdout, exit code 2."""

from __future__ import annotations

import pytest
from bad_values import cases
from click.testing import CliRunner

from ttinspect.cli.main import cli

CASES = cases()


@pytest.mark.parametrize("category,args", CASES, ids=[f"{i}-{c}" for i, (c, _) in enumerate(CASES)])
def test_bad_value_is_one_line_and_exit_2(category, args):
    result = CliRunner().invoke(cli, args)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 2, (args, result.exit_code, result.stderr[-500:], result.exception)
    assert len(lines) == 1 and lines[0].startswith("ttinspect: error: "), result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


def test_there_are_enough_cases():
    """docs/reliability.md quotes the count; every command with options is covered."""
    assert len(CASES) >= 300
    commands = {args[0] for _, args in CASES}
    assert {"dump", "report", "diff", "list", "cache", "bench", "ladder", "autotune", "profile"} <= commands

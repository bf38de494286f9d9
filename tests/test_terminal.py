"""The terminal as people use it, through a real pseudo-terminal and real pipes (not only CliRunner):
colour only on a terminal or when forced, never with NO_COLOR (no bold or dim either); the terminal's
width, COLUMNS, else 80; a closed pipe is exit 0 with nothing on stderr; help, completion, arch names."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shlex
import struct
import subprocess
import sys
import termios

import click
import pytest
from click.testing import CliRunner

from ttinspect.cli.main import cli
from ttinspect.cli.help_text import EXAMPLES, SHORT

ESCAPE = re.compile(r"\x1b\[")
CLI = [sys.executable, "-m", "ttinspect"]


def base_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES", "TTINSPECT_COLOR", "CLICOLOR_FORCE")}
    env.update(TERM="xterm-256color", **extra)
    return env


def on_pty(args: list[str], env: dict[str, str], columns: int = 100) -> tuple[int, str]:
    """Run with stdout and stderr on a pseudo-terminal of `columns` columns; (exit code, output)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    process = subprocess.Popen(CLI + args, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, env=env)
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            process.kill()
            break
        try:
            data = os.read(leader, 65536)
        except OSError:  # the follower side closed: the process is done
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return process.wait(timeout=60), b"".join(chunks).decode(errors="replace").replace("\r\n", "\n")


def piped(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + args, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def warm():
    """Compile once, so that every case below reads the cache."""
    for args in (["report", "opt", "--arch", "sm_90"], ["diff", "naive", "opt"]):
        assert piped(args, base_env()).returncode == 0


TABLES = [["report", "opt", "--arch", "sm_90"], ["diff", "naive", "opt"], ["list"], ["dump", "opt", "--arch", "sm_90"]]


@pytest.mark.slow  # subprocesses (a real terminal, real pipes) or a compile
@pytest.mark.parametrize("args", TABLES, ids=lambda a: a[0])
def test_terminal_gets_colour_and_its_width(warm, args):
    code, out = on_pty(args, base_env(), columns=100)
    assert code == 0, out
    assert ESCAPE.search(out), "a terminal gets colour"
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    if args[0] != "dump":  # code is never wrapped; tables take the terminal's width
        assert max(len(line) for line in plain.splitlines()) <= 100


@pytest.mark.slow  # subprocesses (a real terminal, real pipes) or a compile
@pytest.mark.parametrize("args", TABLES, ids=lambda a: a[0])
@pytest.mark.parametrize("how", ["NO_COLOR", "--color never", "TERM=dumb"])
def test_no_colour_means_no_escape_at_all(args, how):
    env = base_env()
    extra: list[str] = []
    if how == "NO_COLOR":
        env["NO_COLOR"] = "1"
    elif how == "TERM=dumb":
        env["TERM"] = "dumb"
    else:
        extra = ["--color", "never"]
    code, out = on_pty(args + extra, env)
    assert code == 0, out
    assert not ESCAPE.search(out), f"{how}: {out.count(chr(27))} escape codes (bold and dim count too)"


@pytest.mark.slow  # subprocesses (a real terminal, real pipes) or a compile
@pytest.mark.parametrize("args", TABLES, ids=lambda a: a[0])
def test_pipe_is_plain_unless_forced(args):
    assert not ESCAPE.search(piped(args, base_env()).stdout)
    assert ESCAPE.search(piped(args, base_env(FORCE_COLOR="1")).stdout)
    assert ESCAPE.search(piped(args + ["--color", "always"], base_env()).stdout)
    assert not ESCAPE.search(piped(args, base_env(FORCE_COLOR="1", NO_COLOR="1")).stdout)


@pytest.mark.slow  # subprocesses (a real terminal, real pipes) or a compile
@pytest.mark.parametrize("args", TABLES[:3], ids=lambda a: a[0])
def test_pipe_width_is_columns_else_80(args):
    for env, width in ((base_env(), 80), (base_env(COLUMNS="100"), 100), (base_env(COLUMNS="200"), 200)):
        out = piped(args, env).stdout
        assert max(len(line) for line in out.splitlines()) <= width
    out = piped(args + ["--width", "60"], base_env(COLUMNS="200")).stdout
    assert max(len(line) for line in out.splitlines()) <= 60


CLOSED_PIPE = [
    ["list"], ["list", "--json"], ["targets"], ["--help"], ["report", "--help"],
    ["dump", "opt", "--arch", "sm_90"], ["dump", "opt", "--arch", "sm_90", "--stage", "ttgir", "--loop"],
    ["report", "opt", "--arch", "sm_90"], ["report", "opt", "--arch", "sm_90", "--json"],
    ["report", "opt", "--arch", "sm_90", "--explain"],
    ["diff", "naive", "opt"], ["diff", "naive", "opt", "--stage", "ptx"], ["diff", "naive", "opt", "--all"],
    ["diff", "naive", "opt", "--json"], ["check", "opt", "--arch", "sm_90"],
    ["dump", "opt", "--arch", "sm_90", "--color", "always"],
]


@pytest.mark.slow  # subprocesses (a real terminal, real pipes) or a compile
@pytest.mark.parametrize("args", CLOSED_PIPE, ids=" ".join)
def test_closed_pipe_is_exit_0_and_silent(args):
    """The reader has gone before the first byte (`| head -0`): exit 0, nothing on stderr."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(CLI + args, stdout=write_end, stderr=subprocess.PIPE, env=base_env(), timeout=300)
    finally:
        os.close(write_end)
    assert done.returncode == 0 and done.stderr == b"", done.stderr.decode()


@pytest.mark.slow  # subprocesses (a real terminal, real pipes) or a compile
def test_head_reads_one_line():
    done = subprocess.run(" ".join(shlex.quote(a) for a in CLI) + " diff naive opt --stage ptx | head -1",
                          shell=True, executable="/bin/bash", env=base_env(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stderr == "" and len(done.stdout.splitlines()) == 1


def test_help_lists_every_command_whole():
    out = CliRunner().invoke(cli, ["--help"], terminal_width=80).output
    assert "..." not in out[out.index("Commands:"):]
    assert set(SHORT) == set(cli.commands) == set(EXAMPLES)
    for name, short in SHORT.items():
        assert f"{name} " in out and short in out, name
        assert len(short) <= 80 - 6 - max(map(len, SHORT)), f"{name}: its one-liner would wrap at 80 columns"


@pytest.mark.parametrize("name", sorted(SHORT))
def test_each_command_help_ends_with_real_examples(name):
    out = CliRunner().invoke(cli, [name, "--help"], terminal_width=120).output
    examples = out[out.rindex("Examples:"):].splitlines()[1:]
    commands = [line.strip() for line in examples if line.strip().startswith("ttinspect ")]
    assert len(commands) >= 2, out
    for command in commands:  # each parses: the command and every option exist
        argv = shlex.split(command)[1:]
        group_ctx = cli.make_context("ttinspect", list(argv), resilient_parsing=False)
        sub = cli.get_command(group_ctx, argv[0])
        try:
            sub.make_context(argv[0], argv[1:])
        except click.exceptions.Exit:
            pass


def complete(words: str) -> list[str]:
    env = base_env(COMP_WORDS=words, COMP_CWORD=str(len(words.split()) - (0 if words.endswith(" ") else 1)),
                   _TTINSPECT_COMPLETE="bash_complete")
    done = subprocess.run(CLI[:1] + ["-c", "from ttinspect.cli.main import main; main()"], env=env, capture_output=True,
                          text=True, timeout=60)
    return [line.split(",", 1)[1] for line in done.stdout.splitlines() if "," in line]


@pytest.mark.slow  # subprocesses (a real terminal, real pipes) or a compile
def test_shell_completion():
    assert "report" in complete("ttinspect rep")
    assert {"opt", "opt_tma"} <= set(complete("ttinspect report op"))
    assert complete("ttinspect dump opt --stage ") == ["ttir", "glir", "ttgir", "llir", "ptx", "sass"]
    assert "sm_90" in complete("ttinspect dump opt --arch sm_9")
    assert "--explain" in complete("ttinspect report opt --ex")


@pytest.mark.slow  # subprocesses (a real terminal, real pipes) or a compile
def test_arch_specific_names():
    result = CliRunner().invoke(cli, ["dump", "opt", "--arch", "sm_90a"], catch_exceptions=False)
    assert result.exit_code == 0
    header = result.output.splitlines()[0]
    ptx_target = re.search(r"^\.target\s+(\w+)", result.output, flags=re.M).group(1)
    assert "target=sm_90 " in header
    if ptx_target != "sm_90":  # the PTX says which variant Triton compiled; the header says it too
        assert f"PTX .target {ptx_target}" in header
    result = CliRunner().invoke(cli, ["dump", "opt", "--arch", "sm_80a"])
    assert result.exit_code != 0 and "begin at sm_90" in result.output


@pytest.mark.parametrize("decorator, expected", [
    ("@triton.jit", ["k.py:kernel"]),
    ("@triton.autotune(configs=[])\n@triton.jit", ["k.py:kernel"]),
    ("@gluon.jit", ["k.py:kernel"]),
    ("@helion.kernel(config=helion.Config(block_sizes=[64]))", ["k.py:kernel"]),
    ("@functools.cache", []),
])
def test_completion_names_every_kind_of_kernel(tmp_path, monkeypatch, decorator, expected):
    """`my.py:` + Tab lists the kernels a reference can name, read from the text, whatever their kind."""
    from ttinspect.cli.completion import _kernels_in_file

    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(f"{decorator}\ndef kernel(x):\n    pass\n\n\ndef helper():\n    pass\n")
    assert [item.value for item in _kernels_in_file("k.py:")] == expected

"""The docs runner: every code block of README.md and docs/*.md is checked, so the docs cannot drift.

tests/docs_blocks.py finds the blocks and says what each is. Here, one test per block or command:

- test_imports / test_inline_imports (fast): every `from ttinspect... import ...` of every Python block
  (also the skipped ones) and of the prose's inline code imports.
- test_python_block: a Python block is run in a fresh temporary directory (the cwd), in a fresh
  namespace, from a file (Triton reads a kernel's source from its file). A block that defines test_*
  functions is run by pytest in a subprocess, as its reader would run it (the ttinspect plugin comes
  from the package's entry point). Skipped only with a reason: `<!-- docs: skip: REASON -->` before the
  fence (a fragment), or a block that needs a GPU without one.
- test_shell_block_parses (fast): every `ttinspect ...` command of every shell block is parsed by click on
  the real CLI (the group, then the subcommand), without running it: a renamed command, a removed option
  or a value of the wrong type fails here. `python SCRIPT.py` / `bash SCRIPT.sh` must name a file that
  exists.
- test_shell_command_runs (slow: it compiles): each `ttinspect ...` command that needs no GPU and has no
  placeholder is run through click's CliRunner in a fresh temporary directory (its outputs land there)
  and must exit 0. A command is skipped, with the reason, when it
    * is a GPU command (ttinspect/cli/gpu_cmds.py), or asks for `--arch native`, `--executor ray`,
      `--config best` (needs `ttinspect autotune`'s result), or `cache-info --clear` (would empty the
      session's cache);
    * follows, after `&&`, a ttinspect command that is skipped;
    * has a placeholder: a `...`, a `$VARIABLE`, an absolute path that does not exist, a `NAME.py` file
      that is neither in the repository (relative to its root) nor, by its bare name, one file under
      tests/data, kernels/ or benchmarks/ (the docs' `my_mm.py` is tests/data/user_kernels/my_mm.py: it is
      copied, with its sibling modules, into the temporary directory under the name the docs use), a
      `cache:ID` that is no entry of the Triton cache fixture (tests/data/triton_cache, which a copy of is
      the commands' TRITON_CACHE_DIR);
    * is a sweep over more than MAX_SWEEP_POINTS points.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import runpy
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import click
import pytest
from docs_blocks import REPO, Block, Command, all_blocks, doc_files, inline_imports

MAX_SWEEP_POINTS = 20
GPU_COMMANDS = {"bench", "profile", "ladder", "autotune"}   # also: any command defined in ttinspect/cli/gpu_cmds.py
LOOKUP_DIRS = ("tests/data", "kernels", "benchmarks")        # where a bare `NAME.py` of the docs is looked up
TRITON_CACHE_FIXTURE = REPO / "tests" / "data" / "triton_cache"

BLOCKS = all_blocks()
PYTHON = [b for b in BLOCKS if b.kind == "python"]
SHELL = [b for b in BLOCKS if b.kind == "shell"]
COMMANDS = [c for b in SHELL for c in b.commands() if c.program == "ttinspect"]


def _command_ids(commands: list[Command]) -> list[str]:
    seen: Counter[str] = Counter()
    ids = []
    for c in commands:
        seen[c.id] += 1
        ids.append(c.id if seen[c.id] == 1 else f"{c.id}/{seen[c.id]}")   # two commands on one line
    return ids


def _has_cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


# ---- imports ------------------------------------------------------------------------------------

def _check_import(statement: str) -> str | None:
    try:
        exec(compile(statement, "<docs>", "exec"), {})
    except Exception as error:  # noqa: BLE001  (any failure is the finding)
        return f"{statement!r}: {type(error).__name__}: {error}"
    return None


@pytest.mark.parametrize("block", PYTHON, ids=[b.id for b in PYTHON])
def test_imports(block: Block):
    errors = [f"line {n}: {e}" for n, s in block.imports() if (e := _check_import(s))]
    assert not errors, "\n".join(errors)


_WITH_INLINE = [p for p in doc_files() if inline_imports(p)]


@pytest.mark.parametrize("path", _WITH_INLINE, ids=[p.relative_to(REPO).as_posix() for p in _WITH_INLINE])
def test_inline_imports(path: Path):
    errors = [f"line {n}: {e}" for n, s in inline_imports(path) if (e := _check_import(s))]
    assert not errors, "\n".join(errors)


# ---- shell: parse ---------------------------------------------------------------------------------

def parse(argv) -> tuple[str | None, click.Command | None, dict]:
    """click's own parsing of `ttinspect ARGV` on the real CLI, without invoking anything:
    (command name, command, its parameters). Raises click's UsageError on a bad command line."""
    from ttinspect.cli.main import cli

    ctx = cli.make_context("ttinspect", list(argv), resilient_parsing=False)
    rest = [*getattr(ctx, "_protected_args", ()), *ctx.args]
    if not rest:
        return None, None, dict(ctx.params)
    name, command, args = cli.resolve_command(ctx, rest)
    sub = command.make_context(name, args, parent=ctx, resilient_parsing=False)
    return name, command, dict(sub.params)


def _parse_error(command: Command) -> str | None:
    try:
        with contextlib.redirect_stdout(io.StringIO()):   # --help and --version print while parsing
            parse(command.argv)
    except click.exceptions.Exit as done:  # --help, --version: parsed, and they would exit
        return None if done.exit_code == 0 else f"exits {done.exit_code}"
    except click.exceptions.NoArgsIsHelpError:  # a bare `ttinspect`: prints the help, as intended
        return None
    except click.UsageError as error:
        return " ".join(error.format_message().split())
    return None


_SCRIPT = re.compile(r"^[\w./-]+\.(py|sh)$")


@pytest.mark.parametrize("block", SHELL, ids=[b.id for b in SHELL])
def test_shell_block_parses(block: Block):
    errors = []
    for command in block.commands():
        if command.program == "ttinspect":
            if (error := _parse_error(command)):
                errors.append(f"line {command.line}: ttinspect {' '.join(command.argv)}\n    {error}")
        elif command.program in ("python", "python3", "bash", "sh") and command.argv:
            script = command.argv[0]
            if _SCRIPT.match(script) and not (REPO / script).is_file():
                errors.append(f"line {command.line}: {command.program} {script}: no such file in the repository")
    assert not errors, "\n".join(errors)


# ---- shell: run -----------------------------------------------------------------------------------

_PY_REF = re.compile(r"^(?P<path>[^\s=:@*,'\"]+\.(?:py|ttcap))(?=$|[:@])")  # a kernel file, or a capture in the repo
_CACHE_REF = re.compile(r"^cache:(?P<id>[^:@\s]+)")


def find_repo_file(path: str) -> Path | None:
    """The repository's file for a `NAME.py` the docs name: the path itself (from the repository root), or,
    for a bare name, the one file of that name under LOOKUP_DIRS."""
    if (REPO / path).is_file():
        return REPO / path
    if "/" not in path:
        hits = sorted({hit for d in LOOKUP_DIRS for hit in (REPO / d).rglob(path) if hit.is_file()})
        if len(hits) == 1:
            return hits[0]
    return None


def bring_file(path: str, where: Path) -> None:
    """Copy the repository's file for `path` (and its sibling modules: a file may import them) to
    where/path."""
    found = find_repo_file(path)
    assert found is not None, path
    target = (where / path).parent
    target.mkdir(parents=True, exist_ok=True)
    for sibling in found.parent.glob("*.py"):
        shutil.copyfile(sibling, target / (Path(path).name if sibling == found else sibling.name))
    shutil.copyfile(found, target / Path(path).name)


def _cache_entry_exists(entry: str, cache: Path) -> bool:
    entries = [d for d in cache.iterdir() if d.is_dir()]
    return (any(d.name.upper().startswith(entry.upper()) for d in entries)
            or any((d / f"{entry}.json").is_file() for d in entries))


def placeholder(argv, triton_cache: Path) -> str | None:
    for word in argv:
        if "..." in word:
            return f"placeholder {word!r}"
        if "$" in word:
            return f"shell variable in {word!r}"
        if (m := _PY_REF.match(word)) and find_repo_file(m.group("path")) is None:
            return f"{m.group('path')} stands for the reader's file (none of that name in the repository)"
        if (m := _CACHE_REF.match(word)) and not _cache_entry_exists(m.group("id"), triton_cache):
            return f"cache:{m.group('id')} stands for an entry of the reader's Triton cache (not in the fixture)"
        if word.startswith("/") and not Path(word).exists():
            return f"{word} stands for the reader's path"
    return None


def _sweep_points(params: dict) -> int | None:
    try:
        from ttinspect.sweep.run import plan

        return len(plan(params["ref"], tuple(params.get("grid") or ()), params.get("arch"), {})[1])
    except Exception:  # noqa: BLE001  (the run will say what is wrong)
        return None


def skip_reason(command: Command, triton_cache: Path) -> str | None:
    """Why `command` is not run here, or None. The reasons are the module docstring's."""
    if command.block.skip_reason:  # a block marked <!-- docs: skip: ... -->: parsed, not run
        return command.block.skip_reason
    if command.after == "&&" and command.previous is not None and command.previous.program == "ttinspect":
        before = skip_reason(command.previous, triton_cache)
        if before:
            return f"runs after `ttinspect {' '.join(command.previous.argv)}` ({before})"
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            name, cmd, params = parse(command.argv)
    except click.exceptions.Exit:  # --help, --version: nothing to hold it back
        return None
    module = getattr(getattr(cmd, "callback", None), "__module__", "") or ""
    if name in GPU_COMMANDS or module.endswith(".gpu_cmds"):
        return f"`ttinspect {name}` needs a CUDA GPU"
    if str(params.get("arch") or "").lower() == "native":
        return "--arch native needs a CUDA GPU"
    if params.get("executor") == "ray":
        return "--executor ray starts Ray (tests/test_sweep.py runs it)"
    if params.get("config") == "best":
        return "--config best needs the result of `ttinspect autotune` (a GPU)"
    if name == "cache-info" and params.get("clear"):
        return "--clear would empty the test session's cache"
    if (reason := placeholder(command.argv, triton_cache)):
        return reason
    if name == "sweep" and (n := _sweep_points(params) or 0) > MAX_SWEEP_POINTS:
        return f"a sweep over {n} points (more than {MAX_SWEEP_POINTS}: too long for the docs run)"
    return None


@pytest.fixture(scope="session")
def docs_env(tmp_path_factory) -> dict[str, str]:
    """The environment of every run: plain output, a copy of the Triton cache fixture as Triton's cache
    (`ttinspect cache` lists it; compiles write into it, never into the fixture). TTINSPECT_CACHE_DIR is
    the session's (tests/conftest.py)."""
    cache = tmp_path_factory.mktemp("docs") / "triton_cache"
    shutil.copytree(TRITON_CACHE_FIXTURE, cache)
    return {"NO_COLOR": "1", "COLUMNS": "120", "TRITON_CACHE_DIR": str(cache)}


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=_command_ids(COMMANDS))
def test_shell_command_runs(command: Command, docs_env, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from ttinspect.cli.main import cli

    if _parse_error(command):
        pytest.skip("does not parse (test_shell_block_parses fails)")
    if (reason := skip_reason(command, Path(docs_env["TRITON_CACHE_DIR"]))):
        pytest.skip(reason)
    for word in command.argv:
        if (m := _PY_REF.match(word)):
            bring_file(m.group("path"), tmp_path)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, list(command.argv), prog_name="ttinspect", env={**docs_env, **dict(command.env)})
    assert result.exit_code == 0, (f"`{command.source}` exited {result.exit_code}\n"
                                   f"--- stderr\n{result.stderr[-3000:]}\n--- stdout\n{result.stdout[-3000:]}")


# ---- Python ---------------------------------------------------------------------------------------

_PY_STRING_REF = re.compile(r"""["'](?P<path>[\w./-]+\.py)(?::[^"']*)?["']""")


def _page_files(block: Block) -> list[Block]:
    """The `# path.py` blocks before `block` on its page (not tests): the files it may import."""
    return [b for b in PYTHON if b.path == block.path and b.line < block.line and b.file_path
            and not b.is_pytest and b.file_path != block.file_path]


def _prepare(block: Block, where: Path) -> Path:
    for earlier in _page_files(block):
        target = where / earlier.file_path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(earlier.text, encoding="utf-8")
    for m in _PY_STRING_REF.finditer(block.text):
        if find_repo_file(m.group("path")) is not None:
            bring_file(m.group("path"), where)
    name = block.file_path or (f"test_docs_block_{block.line}.py" if block.is_pytest else f"docs_block_{block.line}.py")
    target = where / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(block.text, encoding="utf-8")
    return target


@pytest.mark.slow
@pytest.mark.parametrize("block", PYTHON, ids=[b.id for b in PYTHON])
def test_python_block(block: Block, docs_env, tmp_path, monkeypatch):
    if block.skip_reason:
        pytest.skip(block.skip_reason)
    if block.gpu_reason and not _has_cuda():
        pytest.skip(f"needs a CUDA GPU: {block.gpu_reason}")
    target = _prepare(block, tmp_path)
    if block.is_pytest:
        env = {**os.environ, **docs_env,
               "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)}
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               str(target.relative_to(tmp_path))],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"pytest exited {done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"
        return
    for name, value in docs_env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    try:
        runpy.run_path(str(target), run_name="__main__")
    finally:
        for name in set(sys.modules) - before:   # the block's own modules (mypkg...) do not outlive it
            if str(tmp_path) in str(getattr(sys.modules[name], "__file__", "") or ""):
                del sys.modules[name]

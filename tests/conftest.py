"""Shared test set-up: caches of our own, GPU tests skipped (not failed) without a GPU.

The suite never touches the user's caches: ttinspect's (TTINSPECT_CACHE_DIR, else $XDG_CACHE_HOME/ttinspect)
and Triton's (TRITON_CACHE_DIR, TRITON_HOME/.triton) point into one temporary directory for the session,
removed when it ends. At the end the session warns if ~/.cache/ttinspect or ~/.triton changed meanwhile
(another process may have done it: a warning, not a failure); tests/test_isolation.py proves the rule with
a HOME of its own. TTINSPECT_TEST_CACHE_DIR keeps ttinspect's test cache somewhere of your choosing (to reuse it
between runs); a TTINSPECT_CACHE_DIR you exported for your own use is not used by the tests.

Other tools the suite starts write to HOME unless told otherwise; each is pointed into the session's directory
(or told not to write): rustup (RUSTUP_HOME: pip runs `rustc --version` for its user agent, and rustup's proxy
writes ~/.rustup/settings.toml), Ray (RAY_AUTH_MODE=disabled: a local cluster otherwise saves a token to
~/.ray/auth_token, a path Ray does not let us move), matplotlib (MPLCONFIGDIR, else ~/.config/matplotlib) and
pre-commit (PRE_COMMIT_HOME). pip, uv, torch and pre-commit keep their caches under XDG_CACHE_HOME, set above.
torch's Inductor (TORCHINDUCTOR_CACHE_DIR, else $TMPDIR/torchinductor_USER), torch hub and extensions (TORCH_HOME,
TORCH_EXTENSIONS_DIR) and the CUDA driver's JIT cache (CUDA_CACHE_PATH, else ~/.nv) go there too.
With TTINSPECT_CHECK_HOME=1 the session lists everything under HOME and the names in TMPDIR when it starts and
fails if either differs when it ends (run it with a HOME and TMPDIR of its own: docs/testing.md).
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

_SESSION = Path(tempfile.mkdtemp(prefix="ttinspect-tests-"))
os.environ["TTINSPECT_CACHE_DIR"] = os.environ.get("TTINSPECT_TEST_CACHE_DIR") or str(_SESSION / "ttinspect")
os.environ["TRITON_CACHE_DIR"] = str(_SESSION / "triton-cache")
os.environ["TRITON_HOME"] = str(_SESSION)  # Triton's dump/override directories live under it
os.environ["XDG_CACHE_HOME"] = str(_SESSION / "xdg-cache")  # a test that unsets TTINSPECT_CACHE_DIR lands here
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
os.environ["RUSTUP_HOME"] = str(_SESSION / "rustup")
os.environ["RAY_AUTH_MODE"] = "disabled"
os.environ["MPLCONFIGDIR"] = str(_SESSION / "matplotlib")
os.environ["PRE_COMMIT_HOME"] = str(_SESSION / "pre-commit")
# torch and the CUDA driver keep caches of their own outside XDG_CACHE_HOME: Inductor under
# $TMPDIR/torchinductor_<user> (importing torch.library's triton_op makes it), the driver's JIT cache in ~/.nv.
os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(_SESSION / "torchinductor")
os.environ["TORCH_HOME"] = str(_SESSION / "torch")
os.environ["TORCH_EXTENSIONS_DIR"] = str(_SESSION / "torch-extensions")
os.environ["CUDA_CACHE_PATH"] = str(_SESSION / "nv-compute-cache")

# The tests' Ctrl-C (their own SIGINT, in this process or to the commands they start) works as from a terminal:
# a suite started in the background of a non-interactive shell (CI's lanes) inherits SIGINT ignored, which
# ttinspect rightly keeps ignored (nohup), and which a command started from here would inherit too.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

_HOME = Path.home()
_WATCHED = (_HOME / ".cache" / "ttinspect", _HOME / ".triton")


def _snapshot(root: Path) -> tuple:
    """Names and modification times of everything under root (at most a few thousand entries)."""
    if not root.exists():
        return ()
    return tuple(sorted((str(p.relative_to(root)), p.stat().st_mtime_ns) for p in root.rglob("*")
                        if not p.is_symlink()))


_BEFORE = {root: _snapshot(root) for root in _WATCHED}
_CHECK_HOME = os.environ.get("TTINSPECT_CHECK_HOME", "") == "1"
_HOME_BEFORE = _snapshot(_HOME) if _CHECK_HOME else ()
_TMP = Path(tempfile.gettempdir())
_TMP_BEFORE = {p.name for p in _TMP.iterdir()} if _CHECK_HOME else set()


def _home_changes(before: tuple, after: tuple) -> list[str]:
    """What appeared, went or was rewritten under HOME between two snapshots, as `+ path`, `- path`, `~ path`."""
    old, new = dict(before), dict(after)
    return sorted([f"+ {p}" for p in new.keys() - old.keys()] + [f"- {p}" for p in old.keys() - new.keys()]
                  + [f"~ {p}" for p in old.keys() & new.keys() if old[p] != new[p] and not (_HOME / p).is_dir()])


def _tmp_left() -> list[str]:
    """What the session left in TMPDIR: new entries besides pytest's own tmp_path folders (pytest-of-USER, which
    pytest keeps for the last three runs by design; --basetemp moves them)."""
    return sorted(f"+ {name}" for name in {p.name for p in _TMP.iterdir()} - _TMP_BEFORE
                  if not name.startswith("pytest-of-"))


def _has_cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


# The edit-test loop (`pytest -m "not slow"`, docs/testing.md): modules of pure functions — parsers, lexers,
# layout, tables, the CLI's option checks, the docs' commands parsed. Every other module compiles kernels
# and counts as slow; inside these, a test that compiles or spawns processes is marked slow itself.
QUICK_MODULES = {"test_parse_ptx", "test_parse_mlir", "test_parse_llir", "test_parse_sass", "test_lexers",
                 "test_render_text", "test_loops", "test_versions", "test_fuzz", "test_cli_bad_values",
                 "test_specialize", "test_docs", "test_terminal", "test_resources", "test_source",
                 "test_parse_amdgcn", "test_source_files"}


def pytest_collection_modifyitems(config, items):
    slow = pytest.mark.slow
    for item in items:
        if item.module is not None and item.module.__name__.rsplit(".", 1)[-1] not in QUICK_MODULES:
            item.add_marker(slow)
    if _has_cuda():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_sessionfinish(session, exitstatus):
    touched = [str(root) for root in _WATCHED if _snapshot(root) != _BEFORE[root]]
    shutil.rmtree(_SESSION, ignore_errors=True)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    home_changes = _home_changes(_HOME_BEFORE, _snapshot(_HOME)) if _CHECK_HOME else []
    tmp_left = _tmp_left() if _CHECK_HOME else []
    for where, changes in ((f"changed HOME ({_HOME})", home_changes), (f"left files in TMPDIR ({_TMP})", tmp_left)):
        if not changes:
            continue
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_line(f"error: the test session {where}, TTINSPECT_CHECK_HOME=1:", red=True)
            for change in changes[:50]:
                reporter.write_line(f"  {change}", red=True)
    if touched and reporter is not None:
        reporter.write_line(f"warning: {', '.join(touched)} changed during the test session "
                            "(the tests point every cache elsewhere: another process?)", yellow=True)


from golden_option import pytest_addoption  # noqa: E402,F401  (--update-golden)


@pytest.fixture(autouse=True)
def _terminal_choices_reset():
    """--width/--color set process-wide choices when click parses them (the docs runner parses commands
    without running them): every test starts and ends with none."""
    from ttinspect.render import term

    term.reset()
    yield
    term.reset()

"""The suite leaves nothing behind: a pytest run with a HOME and TMPDIR of its own, and no cache variables
set, leaves that HOME empty (no ~/.cache/ttinspect, ~/.triton, ~/.rustup, ~/.ray, ~/.nv) and that TMPDIR empty
(no ttinspect-tests-*, no torchinductor_USER): TTINSPECT_CHECK_HOME=1 fails the session otherwise."""

from __future__ import annotations

import os
import subprocess
import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.mark.slow
def test_a_test_run_touches_no_user_cache(tmp_path):
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in CACHE_VARIABLES}
    env.update(HOME=str(home), TMPDIR=str(tmp), TTINSPECT_CHECK_HOME="1")
    # Compiles (dump, report), the pytest plugin (its own inspect calls), a test that unsets the cache
    # variable on purpose, a file importing torch.library's triton_op (which makes Inductor's cache folder),
    # and the tools the suite starts that write to HOME unless told otherwise.
    tests = ["tests/test_cli.py::test_dump_ptx_has_header_with_target", "tests/test_pytest_plugin.py",
             "tests/test_targets_cache.py",
             "tests/test_packages.py::test_a_module_registering_torch_ops_is_imported_for_a_second_target",
             "tests/test_isolation.py::test_tools_the_suite_starts_write_outside_home"]
    # pytest's own tmp_path folders go outside TMPDIR, so that everything else in it is the suite's doing
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           f"--basetemp={tmp_path / 'basetemp'}", *tests],
                          cwd=HERE.parent, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert not (home / ".cache" / "ttinspect").exists()
    assert not (home / ".triton").exists()
    assert not list(home.iterdir()), sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    assert not list(tmp.iterdir()), f"left behind in TMPDIR: {sorted(p.name for p in tmp.iterdir())}"
    assert "changed during the test session" not in done.stdout


# Every variable that moves a cache the suite's tools write: the run above starts with none of them, as a
# user's shell would, so conftest.py alone must place them.
CACHE_VARIABLES = ("TTINSPECT_CACHE_DIR", "TTINSPECT_TEST_CACHE_DIR", "TRITON_CACHE_DIR", "TRITON_HOME",
                   "XDG_CACHE_HOME", "TORCHINDUCTOR_CACHE_DIR", "TORCH_HOME", "TORCH_EXTENSIONS_DIR",
                   "CUDA_CACHE_PATH", "RUSTUP_HOME", "MPLCONFIGDIR", "PRE_COMMIT_HOME")


def test_the_session_fails_when_a_run_leaves_a_file_in_tmpdir(tmp_path):
    """The check itself: a test that leaves a folder in TMPDIR (as Inductor did) fails the session."""
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    (tmp_path / "tests").mkdir()
    for helper in ("conftest.py", "golden_option.py"):
        shutil.copy(HERE / helper, tmp_path / "tests" / helper)
    (tmp_path / "tests" / "test_leaves.py").write_text(
        "import os, tempfile\n\n\ndef test_leaves():\n"
        "    os.mkdir(os.path.join(tempfile.gettempdir(), 'torchinductor_someone'))\n")
    env = {k: v for k, v in os.environ.items() if k not in CACHE_VARIABLES}
    env.update(HOME=str(home), TMPDIR=str(tmp), TTINSPECT_CHECK_HOME="1")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:ttinspect",
                           f"--basetemp={tmp_path / 'basetemp'}", "tests/test_leaves.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert "left files in TMPDIR" in done.stdout and "+ torchinductor_someone" in done.stdout


@pytest.mark.slow
def test_tools_the_suite_starts_write_outside_home(tmp_path):
    """What pip does before it downloads (toolchains), and a local Ray (sweep, snapshot), with the environment
    conftest.py gives them: run by the test above under a HOME of its own, which must stay empty."""
    agent = "from pip._internal.network.session import user_agent; user_agent()"  # runs `rustc --version`
    assert subprocess.run([sys.executable, "-c", agent], capture_output=True, timeout=120).returncode == 0
    if importlib.util.find_spec("ray") is None:
        return
    ray_tmp = tempfile.mkdtemp(prefix="tt-ray-", dir="/tmp")  # short, as Ray's socket paths must be; removed
    try:
        start = ("import ray; ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False); "
                 "assert ray.get(ray.put(1)) == 1; ray.shutdown()")
        done = subprocess.run([sys.executable, "-c", start], env={**os.environ, "RAY_TMPDIR": ray_tmp},
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)

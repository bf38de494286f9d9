"""The suite leaves nothing behind: a pytest run with a HOME and TMPDIR of its own, and no cache variables
set, creates neither ~/.cache/ttinspect nor ~/.triton there, and removes its temporary directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.mark.slow
def test_a_test_run_touches_no_user_cache(tmp_path):
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("TTINSPECT_CACHE_DIR", "TTINSPECT_TEST_CACHE_DIR", "TRITON_CACHE_DIR", "TRITON_HOME",
                        "XDG_CACHE_HOME")}
    env.update(HOME=str(home), TMPDIR=str(tmp))
    # Compiles (dump, report), the pytest plugin (its own inspect calls) and a test that unsets the cache
    # variable on purpose.
    tests = ["tests/test_cli.py::test_dump_ptx_has_header_with_target", "tests/test_pytest_plugin.py",
             "tests/test_targets_cache.py"]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
                          cwd=HERE.parent, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert not (home / ".cache" / "ttinspect").exists()
    assert not (home / ".triton").exists()
    left = [p.name for p in tmp.iterdir() if p.name.startswith("ttinspect")]
    assert not left, f"temporary directories left behind: {left}"
    assert "changed during the test session" not in done.stdout

"""Signals and concurrency, the families of the hostile suite that need timing: a compile stopped by
SIGINT, SIGTERM or SIGHUP ends with one line and 128 + the signal, and leaves a cache the next run uses;
several processes writing one output file or clearing the cache while others compile all succeed, and
every file is whole. (The sweep's worker tree under signals: tests/test_sweep*.py.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SLOW_COLD = ("report", "tileon", "--arch", "sm_80")  # seconds of compiling: time to be interrupted


def _start(argv, env, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "ttinspect", *argv], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "TTINSPECT_CACHE_DIR": str(tmp_path / "cache"), "TRITON_CACHE_DIR": str(tmp_path / "triton")}


def _wait_until_compiling(root: Path, process: subprocess.Popen, limit: float = 60) -> None:
    """Until triton is at work: its own cache folder appears when the first stage is written."""
    start = time.monotonic()
    while time.monotonic() - start < limit and process.poll() is None:
        if (root / "triton").exists() or time.monotonic() - start > 3:
            return
        time.sleep(0.05)


@pytest.mark.parametrize("signum, code, says", [(signal.SIGINT, 130, "ttinspect: interrupted"),
                                                (signal.SIGTERM, 143, "ttinspect: terminated (SIGTERM)"),
                                                (signal.SIGHUP, 129, "ttinspect: terminated (SIGHUP)")])
def test_a_signal_mid_compile_is_one_line_and_the_cache_stays_usable(tmp_path, signum, code, says):
    env = _env(tmp_path)
    process = _start(SLOW_COLD, env)
    _wait_until_compiling(tmp_path, process)
    time.sleep(0.5)
    process.send_signal(signum)
    out, err = process.communicate(timeout=120)
    if process.returncode == 0:  # the compile won the race: nothing to interrupt on this machine
        pytest.skip("the compile finished before the signal")
    assert process.returncode == code, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == says and err.count("\n") == 1, err
    again = subprocess.run([sys.executable, "-m", "ttinspect", *SLOW_COLD, "--json"], env=env, capture_output=True,
                           text=True, timeout=300)
    assert again.returncode == 0 and again.stdout.startswith("{"), again.stderr


def test_an_ignored_sighup_stays_ignored(tmp_path):
    """`nohup ttinspect ...`: SIGHUP ignored by the parent is not turned into a stop."""
    env = _env(tmp_path)
    process = _start(("report", "add", "--arch", "sm_80"), env,
                     preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    _wait_until_compiling(tmp_path, process)
    process.send_signal(signal.SIGHUP)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0 and out.strip(), err


def test_four_writers_of_one_page_leave_a_whole_page(tmp_path):
    env = _env(tmp_path)
    subprocess.run([sys.executable, "-m", "ttinspect", "report", "add"], env=env, check=True, capture_output=True)
    page = tmp_path / "page.html"
    writers = [_start(("html", "add", "-o", str(page), "--force", "--no-passes"), env) for _ in range(4)]
    results = [(w.wait(timeout=300), w.stderr.read() if w.stderr else "") for w in writers]
    for writer in writers:
        for stream in (writer.stdout, writer.stderr):
            if stream:
                stream.close()
    assert all(code == 0 for code, _ in results), results
    assert page.read_text().rstrip().endswith("</html>")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".page.html")] == []  # no temporary left


def test_clearing_the_cache_while_others_compile(tmp_path):
    """`cache-info --clear` in one shell while two compiles run in others: every command succeeds (a
    compile whose entry was removed under it writes it again), no traceback, the cache verifies."""
    env = _env(tmp_path)
    compiles = [_start(("report", name, "--arch", "sm_90", "--json"), env) for name in ("naive", "add")]
    clears = []
    while any(p.poll() is None for p in compiles):
        clears.append(subprocess.run([sys.executable, "-m", "ttinspect", "cache-info", "--clear"], env=env,
                                     capture_output=True, text=True, timeout=120))
        time.sleep(0.2)
    for process in compiles:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0 and out.startswith("{") and "Traceback" not in err, err
    assert clears and all(c.returncode == 0 and "Traceback" not in c.stderr for c in clears), clears[-1].stderr
    again = subprocess.run([sys.executable, "-m", "ttinspect", "report", "naive", "--arch", "sm_90"], env=env,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "damaged" not in again.stderr, again.stderr

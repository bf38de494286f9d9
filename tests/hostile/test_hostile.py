"""The hostile-input suite (issue: nothing the user has is ever lost): every case of cases.py run through the
real CLI in the sentinel workspace; each must give its exit code and its one line (or the documented two
for a compile error), never a traceback, and leave every file of the workspace as it was."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from cases import all_cases
from harness import Case, check, run, snapshot
from workspace import make

CASES = all_cases()


@pytest.fixture(scope="module")
def sentinel(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    ws = make(root)
    # the shipped variants the cases use, compiled once: a case then costs a process start, not a compile
    for argv in (("report", "opt"), ("report", "naive"), ("check", "opt")):
        subprocess.run([sys.executable, "-m", "ttinspect", *argv], cwd=ws, capture_output=True, check=True)
    before = snapshot(ws)
    yield root, ws, before
    for folder, dirs, _ in os.walk(root):  # the read-only file and folders: removable at the end
        for name in dirs:
            os.chmod(os.path.join(folder, name), 0o755)
    shutil.rmtree(root, ignore_errors=True)


def test_the_table_is_large_enough():
    """The issue asks for 300+ cases beyond the option suite (tests/bad_values.py)."""
    assert len(CASES) >= 300, len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_case(case: Case, sentinel, tmp_path):
    root, ws, before = sentinel
    out = tmp_path / "out"
    out.mkdir()
    places = {"ws": str(ws), "out": str(out), "cache": os.environ["TTINSPECT_CACHE_DIR"]}
    if case.setup is not None:
        case.setup(out)
    done = run(case, places)
    check(case, done)
    after = snapshot(ws)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    assert not changed, f"{case.id} changed the user's files: {changed[:10]}"

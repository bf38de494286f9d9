"""Captures that claim to be whole are (issue 38): every way a run's records can fall short — a process still
recording after the program ended, one killed, a full disk, the parts folder removed or replaced, SIGTERM
while the parts are joined, a capture inside a capture — is one line of the end record's `lost` and one line
on stderr, and `ttinspect capture` exits non-zero (1 when the program itself exited 0). Most cases are the
join itself, in-process (capture/merge.py); the ones that need real processes run the command."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from cli_helpers import run_process

from ttinspect.capture import lost, process, read
from ttinspect.capture.merge import Run, merge
from ttinspect.capture.session import Session

# --- the join, in-process ---------------------------------------------------------------------------------

BASE = process.run_fields(process.header(["python", "prog.py"]))  # what `ttinspect capture` gives the join


def _part(folder: Path, pid: int, *, ended: bool = True, launches: int = 3) -> Path:
    """A part as process `pid` writes it: one compile and `launches` launches, closed or not."""
    path = folder / f"{pid}-1.ttcap"
    session = Session(path, {**process.header(["prog.py", str(pid)]), "created": f"2026-01-01T00:00:{pid % 60:02d}"})
    compile_id = session.add_compile({"name": "kern", "params": ["n"], "signature": "i32", "constexprs": {},
                                      "options": {}})
    for _ in range(launches):
        session.add_launch(compile_id, "prog.py:1", (1, 1, 1))
    if ended:
        session.close(0)
    else:
        session._write_sites()
        session._stream.close()
    lines = path.read_text().splitlines(keepends=True)  # the pid a process of a run would have written
    lines[0] = json.dumps({**json.loads(lines[0]), "pid": pid, "ppid": 1}) + "\n"
    path.write_text("".join(lines))
    return path


def _no_change(folder: Path) -> None:
    pass


def _child_killed(folder: Path) -> None:
    _part(folder, 101, ended=False)


def _disk_full_said_in_part(folder: Path) -> None:
    path = _part(folder, 101, ended=False)
    with path.open("a") as stream:
        stream.write(json.dumps({"type": "lost", "lost": lost.stopped_line("process 101 (prog.py)", "ENOSPC")}) + "\n")


def _disk_full_marker(folder: Path) -> None:
    path = _part(folder, 101, ended=False)
    lost.mark_stopped(path, OSError(errno.ENOSPC, "No space left on device"))


def _disk_full_before_the_header(folder: Path) -> None:
    (folder / "101-1.ttcap").write_bytes(b"")
    lost.mark_stopped(folder / "101-1.ttcap", OSError(errno.ENOSPC, "No space left on device"))


def _marker_without_part(folder: Path) -> None:
    lost.mark_stopped(folder / "102-1.ttcap", OSError(errno.EDQUOT, "Disk quota exceeded"))


def _part_damaged(folder: Path) -> None:
    (folder / "103-1.ttcap").write_text("not a capture\n")


def _killed_as_it_started(folder: Path) -> None:
    (folder / "104-1.ttcap").write_bytes(b"")  # nothing recorded, so nothing lost


def _root_killed(folder: Path) -> None:
    (folder / "100-1.ttcap").unlink()
    _part(folder, 100, ended=False)


@pytest.mark.parametrize("damage, said", [
    (_no_change, None),
    (_killed_as_it_started, None),
    (_child_killed, "process 101 (prog.py 101) ended without closing its part (killed, or crashed)"),
    (_disk_full_said_in_part, "process 101 (prog.py) stopped recording when a write to its part failed "
                              "(ENOSPC: No space left on device)"),
    (_disk_full_marker, "process 101 (prog.py 101) stopped recording when a write to its part failed "
                        "(ENOSPC: No space left on device)"),
    (_disk_full_before_the_header, "process 101 stopped recording when a write to its part failed (ENOSPC"),
    (_marker_without_part, "process 102 stopped recording when a write to its part failed (EDQUOT"),
    (_part_damaged, "103-1.ttcap:1: damaged line, not JSON"),
    (_root_killed, "process 100 (prog.py 100) was ended by SIGKILL before its recording closed"),
])
def test_every_loss_in_a_part_is_one_lost_line(tmp_path, damage, said):
    folder = tmp_path / ".run.parts"
    folder.mkdir()
    _part(folder, 100)
    damage(folder)
    merged = merge(folder, tmp_path / "run.ttcap", base_header=BASE, exit_code=0, compress=False, force=False,
                   run=Run(program_pid=100, program_signal="SIGKILL"))
    capture = read(tmp_path / "run.ttcap")
    end = json.loads((tmp_path / "run.ttcap").read_text().splitlines()[-1])
    assert end["type"] == "end" and not folder.exists()  # the parts and markers are gone once joined
    if said is None:
        assert merged.complete and merged.lost == [] and "lost" not in end and capture.complete
        return
    assert len(merged.lost) == 1 and said in merged.lost[0], merged.lost
    assert end["lost"] == merged.lost and not merged.complete and not capture.complete
    assert capture.launch_count("k1") >= 3  # what the other processes recorded is all there


@pytest.mark.parametrize("how", ["removed", "replaced"])
def test_a_parts_folder_removed_or_replaced_is_said_not_taken_for_an_empty_run(tmp_path, how):
    folder = tmp_path / ".run.parts"
    folder.mkdir()
    token = lost.claim(folder)
    _part(folder, 100)
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    if how == "replaced":
        folder.mkdir()  # often under the same inode number: the claim tells them apart
    merged = merge(folder, tmp_path / "run.ttcap", base_header=BASE, exit_code=0, compress=False, force=False,
                   run=Run(folder_token=token))
    assert merged.lost == [f"the parts folder {folder} was {how} while the program ran: what its processes "
                           f"recorded {'there' if how == 'removed' else 'before'} is lost"]
    assert not read(tmp_path / "run.ttcap").complete


def test_a_process_still_recording_is_waited_for_then_said(tmp_path):
    folder = tmp_path / ".run.parts"
    folder.mkdir()
    _part(folder, 100)
    held = _part(folder, 101, ended=False)
    stream = held.open("ab")
    lost.hold(stream)  # as the still-running process holds its part
    try:
        assert lost.still_recording(held)
        merged = merge(folder, tmp_path / "run.ttcap", base_header=BASE, exit_code=0, compress=False, force=False,
                       run=Run(wait=0.2))
    finally:
        stream.close()
    assert len(merged.lost) == 1 and merged.lost[0].startswith(
        "process 101 (prog.py 101) was still recording when the capture was joined (0.2 s after the program ended)")
    assert not lost.still_recording(tmp_path / "run.ttcap")


# --- the recorder: a write that fails -------------------------------------------------------------------------

class _FullDisk:
    """A part's stream on a disk that fills: writes fail with ENOSPC (after `whole` of them succeed, and, with
    `once`, only the first failing write)."""

    def __init__(self, stream, whole: int, once: bool):
        self.stream, self.whole, self.once, self.failed = stream, whole, once, False

    def write(self, data: bytes) -> int:
        if self.whole > 0 or (self.once and self.failed):
            self.whole -= 1
            return self.stream.write(data)
        self.failed = True
        half = self.stream.write(data[: len(data) // 2])  # a short write first, as a full disk gives
        return half

    def __getattr__(self, name):
        return getattr(self.stream, name)


@pytest.mark.parametrize("once, where", [(True, "part"), (False, "marker")])
def test_a_full_disk_stops_recording_and_says_why(tmp_path, capsys, once, where):
    folder = tmp_path / ".run.parts"
    folder.mkdir()
    session = Session(folder / "100-1.ttcap", process.header(["prog.py"]))
    session._stream = _FullDisk(session._stream, whole=1, once=once)
    compile_id = session.add_compile({"name": "kern", "params": [], "signature": "", "constexprs": {}, "options": {}})
    session.add_launch(compile_id or "k1", "prog.py:1", (1, 1, 1))
    session.close(0)
    assert session.stopped and "capture stopped recording in process" in capsys.readouterr().err
    text = (folder / "100-1.ttcap").read_text()
    assert text.endswith("\n")  # the torn line was cut back: the part ends on a whole line
    markers = lost.markers(folder)
    assert ('"type": "lost"' in text or '"type":"lost"' in text) == (where == "part")
    assert (markers == {"100-1.ttcap": "ENOSPC"}) == (where == "marker")
    merged = merge(folder, tmp_path / "run.ttcap", base_header=BASE, exit_code=0, compress=False, force=False)
    assert len(merged.lost) == 1 and "(ENOSPC: No space left on device)" in merged.lost[0]


# --- real runs of `ttinspect capture` ----------------------------------------------------------------------

PROGRAM = textwrap.dedent("""\
    import os, shutil, signal, subprocess, sys, time
    from ttinspect.capture import session

    def record(name="kern", launches=3, site="prog.py:5"):
        s = session.current()
        compile_id = s.add_compile({"name": name, "params": ["n"], "signature": "i32", "constexprs": {},
                                    "options": {}})
        for _ in range(launches):
            s.add_launch(compile_id, site, (1, 1, 1))

    def orphan(delay):
        # a fork child that launches after the program ended; its stdio closed so nothing waits on it
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            open("orphan.pid", "w").write(str(os.getpid()))
            time.sleep(delay)
            record(launches=2, site="prog.py:orphan")
            os._exit(0)

    how = sys.argv[1]
    record()
    if how.startswith("orphan:"):
        orphan(float(how[7:]))
    elif how == "child-killed":
        subprocess.run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"])
    elif how in ("folder-removed", "folder-replaced"):
        shutil.rmtree(os.environ["TTINSPECT_CAPTURE"])
        if how == "folder-replaced":
            os.mkdir(os.environ["TTINSPECT_CAPTURE"])
    elif how == "nested":
        inner = [sys.executable, "-m", "ttinspect", "capture", "-o", "inner.ttcap", "--", sys.executable,
                 __file__, "inner"]
        sys.exit(subprocess.run(inner).returncode)
    elif how == "inner":
        record(name="inner_kern", launches=4, site="prog.py:inner")
""")


def _capture(tmp_path: Path, how: str, *options: str) -> subprocess.CompletedProcess:
    (tmp_path / "prog.py").write_text(PROGRAM)
    return run_process("capture", "-o", "run.ttcap", *options, "--", sys.executable, "prog.py", how, cwd=tmp_path)


def _lost_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("ttinspect: warning: not in the capture: ")]


@pytest.mark.parametrize("how, options, said", [
    ("child-killed", (), "ended without closing its part (killed, or crashed)"),
    ("folder-removed", (), "was removed while the program ran"),
    ("folder-replaced", (), "was replaced while the program ran"),
    ("orphan:30", ("--wait", "0.3"), "was still recording when the capture was joined (0.3 s after the program"),
])
def test_a_run_that_lost_records_says_so_and_exits_1(tmp_path, how, options, said):
    try:
        done = _capture(tmp_path, how, *options)
    finally:
        if how.startswith("orphan:"):
            _end_the_orphan(tmp_path)
    assert done.returncode == 1, done.stderr
    lines = _lost_lines(done.stderr)
    assert len(lines) == 1 and said in lines[0], done.stderr
    assert "-S, -I or -E" not in done.stderr and "Traceback" not in done.stderr
    capture = read(tmp_path / "run.ttcap")
    end = json.loads((tmp_path / "run.ttcap").read_text().splitlines()[-1])
    assert not capture.complete and len(end["lost"]) == 1 and said in end["lost"][0]
    assert sorted(os.listdir(tmp_path)) in (["prog.py", "run.ttcap"], ["orphan.pid", "prog.py", "run.ttcap"])


def test_a_fork_that_outlives_the_program_is_waited_for(tmp_path):
    done = _capture(tmp_path, "orphan:0.5")
    assert done.returncode == 0, done.stderr
    capture = read(tmp_path / "run.ttcap")
    assert capture.complete and {e.site: e.count for e in capture.launches} == {"prog.py:5": 3, "prog.py:orphan": 2}
    assert capture.header.extra["processes"] == 2 and _lost_lines(done.stderr) == []


def test_a_capture_inside_a_capture_nests(tmp_path):
    done = _capture(tmp_path, "nested")
    assert done.returncode == 0, done.stderr
    inner, outer = read(tmp_path / "inner.ttcap"), read(tmp_path / "run.ttcap")
    assert inner.complete and [c.name for c in inner.compiles] == ["kern", "inner_kern"]
    assert outer.complete and sorted(c.name for c in outer.compiles) == ["inner_kern", "kern"]
    assert {e.site: e.count for e in outer.launches} == {"prog.py:5": 6, "prog.py:inner": 4}
    assert sorted(os.listdir(tmp_path)) == ["inner.ttcap", "prog.py", "run.ttcap"]


def test_sigterm_while_joining_writes_the_file_whole_and_says_what_was_not_waited_for(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    command = [sys.executable, "-m", "ttinspect", "capture", "-o", "run.ttcap", "--wait", "120", "--",
               sys.executable, "prog.py", "orphan:60"]
    try:
        with subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, text=True) as run:
            assert run.stderr is not None and run.stderr.readline().startswith("ttinspect: waiting up to 120 s")
            run.terminate()
            err = run.stderr.read()
            run.wait(timeout=60)
    finally:
        _end_the_orphan(tmp_path)
    assert run.returncode == 128 + signal.SIGTERM, err
    assert err.splitlines()[-1] == ("ttinspect: stopped by SIGTERM while joining the parts; run.ttcap holds what "
                                    "was recorded until then")
    capture = read(tmp_path / "run.ttcap")
    assert not capture.complete and capture.launch_count("k1") == 3
    assert len(_lost_lines(err)) == 1 and "was still recording when the capture was joined" in err
    assert sorted(os.listdir(tmp_path)) == ["orphan.pid", "prog.py", "run.ttcap"]  # no temporary, no parts


def _end_the_orphan(tmp_path: Path) -> None:
    """The orphan a test's program forked (by the pid it wrote), so that nothing of the test outlives it."""
    deadline = time.monotonic() + 5
    pid_file = tmp_path / "orphan.pid"
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        os.kill(int(pid_file.read_text()), signal.SIGKILL)
    except (OSError, ValueError):  # ended already, or never started
        pass

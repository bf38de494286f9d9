"""`ttinspect sweep` under hostile input: the exit code when every point failed, bad --grid keys,
targets, --columns/--sort/--plot-fact names, --where nesting and --ray-address refused in one line
before anything compiles, and SIGTERM/SIGHUP/SIGINT ending the whole worker tree (pool workers,
their ptxas, the forkserver, the resource tracker) with the finished rows printed and 128 + the signal."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import assert_one_stderr_line_error, run_cli

from ttinspect.errors import Terminated, UsageError
from ttinspect.sweep.executors import check_ray_address
from ttinspect.sweep.run import SweepResult
from ttinspect.sweep.where import MAX_DEPTH, Where, WhereError

FILE = Path(__file__).parent / "data" / "user_kernels" / "my_mm.py"
ADD_ARGS = ["--arg", "x_ptr=*fp32", "--arg", "y_ptr=*fp32", "--arg", "out_ptr=*fp32", "--arg", "n=4096"]
HAS_RAY = importlib.util.find_spec("ray") is not None


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch) -> Path:
    """A cache of its own: a refusal before anything compiles leaves no entry in it."""
    monkeypatch.setenv("TTINSPECT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


# --- 1. every point failed: a non-zero exit, the code their failures share -----------------------------

def _rows(*codes: int | None) -> list[dict]:
    return [{"error": None} if code is None else {"error": "no", "exit_code": code} for code in codes]


@pytest.mark.parametrize("rows, interrupted_by, code", [
    (_rows(3, 3), None, 3),  # every one rejected by Triton
    (_rows(2, 2, 2), None, 2),  # every one bad input
    (_rows(3, 2), None, 1),  # failures of different kinds
    (_rows(3, None), None, 0),  # some compiled: the table shows the failures
    ([{"error": "an older worker's row"}], None, 1),  # no exit_code: unknown kind
    ([], None, 0),
    (_rows(3, 3), KeyboardInterrupt(), 130),  # a signal wins over the failures
    (_rows(None), Terminated(signal.SIGTERM), 143),
    ([], Terminated(signal.SIGHUP), 129),
])
def test_exit_code_rules(rows, interrupted_by, code):
    result = SweepResult("add", ["BLOCK_SIZE"], rows, len(rows) + 1, interrupted=interrupted_by is not None,
                         stopped_by=interrupted_by)
    assert result.exit_code == code


@pytest.mark.parametrize("grid, code, kinds", [
    ("BLOCK_SIZE=100,200", 3, "CompileError"),  # Triton rejects both (not a power of 2)
    ("BLOCK_SIZE=0,-4", 2, "UsageError"),  # both refused as --set refuses them
    ("BLOCK_SIZE=100,0", 1, "CompileError, UsageError"),  # two kinds
])
def test_every_point_failed_exits_non_zero(grid, code, kinds):
    result = run_cli("sweep", "add", "--grid", grid, "--arch", "sm_90", "-j", "1", "--json")
    line = assert_one_stderr_line_error(result, code, "all 2 points failed", kinds)
    data = json.loads(result.stdout)  # the rows are printed all the same, each with its kind and code
    assert data["failed"] == 2 and all(r["error_kind"] in kinds and r["exit_code"] for r in data["rows"]), line


# --- 2. bad --grid keys, targets, references, values: one line, exit 2, nothing compiled --------------

@pytest.mark.parametrize("args, says", [
    (("add", "--grid", "NOT_A_KEY=1,2"), ["unknown --grid key 'NOT_A_KEY'", "valid keys: BLOCK_SIZE"]),
    (("add", "--grid", "BLOCK_SIZE=256", "--grid", "NOT_A_KEY=1"), ["'NOT_A_KEY'"]),
    (("add", "--grid", "BLOCK_SIZE=256", "--arch", "sm_80,sm_999"), ["unknown arch 'sm_999'", "sm_80, sm_86"]),
    (("add@sm_999", "--grid", "BLOCK_SIZE=256"), ["unknown arch 'sm_999'"]),
    (("add", "--grid", "num_warps=4,abc"), ["--grid num_warps=abc: must be one of 1, 2, 4"]),
    (("opt:NOT_A_KEY=1", "--grid", "num_warps=4,8"), ["'NOT_A_KEY'", "valid keys"]),
    (("opt:num_stages=-1", "--grid", "num_warps=4,8"), ["num_stages=-1: must be an integer from 0"]),
    (("no_such_variant", "--grid", "num_warps=4"), ["unknown variant 'no_such_variant'"]),
    ((f"{FILE}:add_kernel", *ADD_ARGS, "--grid", "NOT_A_KEY=1,2", "--arch", "sm_90", "-j", "2"),
     ["--grid NOT_A_KEY: not a parameter of add_kernel", "parameters: x_ptr", "options: num_warps"]),
    ((f"{FILE}:add_kernel:num_warps=3", *ADD_ARGS, "--grid", "num_warps=4,8"), ["num_warps=3: must be one of"]),
    (("add", "--grid", "BLOCK_SIZE=256", "--where", "(" * 5000 + "ok" + ")" * 5000), [f"more than {MAX_DEPTH}"]),
    (("add", "--grid", "BLOCK_SIZE=256", "--where", "not " * 5000 + "ok"), [f"more than {MAX_DEPTH}"]),
], ids=lambda v: re.sub(r"\W+", "_", " ".join(map(str, v)))[:60] if isinstance(v, tuple) else None)
def test_refused_before_anything_compiles(fresh_cache, args, says):
    assert_one_stderr_line_error(run_cli("sweep", *args), 2, *says)
    assert not list(fresh_cache.rglob("manifest.json")), "something was compiled"


# --- 3. --columns (and --sort, --plot-fact) names: known from the rows --------------------------------

@pytest.mark.parametrize("option, value, says", [
    ("--columns", "registers,bogus,regsters", ["--columns: unknown columns 'bogus', 'regsters'",
                                               "did you mean registers", "known: registers, spills"]),
    ("--sort", "-bogus", ["--sort: unknown fact or axis 'bogus'", "known: registers"]),
    ("--plot-fact", "bogus", ["--plot-fact: unknown fact 'bogus'"]),
])
def test_unknown_names_are_refused_once_the_rows_exist(tmp_path, option, value, says):
    plot = ["--plot", str(tmp_path / "p.png"), "--grid", "num_warps=4"] if option == "--plot-fact" else []
    result = run_cli("sweep", "add", "--grid", "BLOCK_SIZE=256", "--arch", "sm_90", "-j", "1", option, value, *plot)
    assert_one_stderr_line_error(result, 2, *says)
    assert result.stdout == "" and not (tmp_path / "p.png").exists()


def test_columns_show_any_known_name_and_all_failed_refuses_none():
    table = run_cli("sweep", "add", "--grid", "BLOCK_SIZE=256", "--arch", "sm_90", "-j", "1", "--columns",
                    "arch,label,registers", "--width", "200")
    assert table.exit_code == 0 and table.stderr == "", table.stderr
    assert "sm_90" in table.stdout and "?" not in table.stdout  # arch and label are cells, not `?`
    # with no point compiled there are no facts to check a name against: the failure is the answer
    failed = run_cli("sweep", "add", "--grid", "BLOCK_SIZE=100", "--arch", "sm_90", "-j", "1", "--columns",
                     "local_bytes")
    assert_one_stderr_line_error(failed, 3, "the only point failed (CompileError)")


# --- 4. --where nesting ----------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["(" * (MAX_DEPTH + 1) + "ok" + ")" * (MAX_DEPTH + 1), "not " * (MAX_DEPTH + 1) + "ok",
                                  "(" * 100_000, "(not " * 3000 + "ok" + ")" * 3000])
def test_where_refuses_deep_nesting_in_one_line(text):
    with pytest.raises(WhereError, match=f"more than {MAX_DEPTH} deep") as caught:
        Where(text)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 300


def test_where_at_the_limit_works_and_a_recursion_error_is_a_usage_error():
    assert Where("(" * MAX_DEPTH + "ok" + ")" * MAX_DEPTH)({"ok": True}) is True
    assert Where("not " * MAX_DEPTH + "ok")({"ok": True}) is True  # an even number of `not`
    where = Where("ok")

    def deep(row):
        raise RecursionError("maximum recursion depth exceeded")

    where._node = deep  # whatever still recurses too far is refused alike
    with pytest.raises(WhereError, match="nested too deep"):
        where({"ok": True})


# --- 5. --ray-address ------------------------------------------------------------------------------

@pytest.mark.parametrize("address, expected", [
    ("auto", None), ("local", None), ("ray://head:10001", ("head", 10001)), ("head:6379", ("head", 6379)),
    ("10.0.0.1:6379", ("10.0.0.1", 6379)), ("[::1]:6379", ("::1", 6379)),
    ("ray://node-1.example.org:1", ("node-1.example.org", 1)),
])
def test_ray_address_forms_ray_init_takes(address, expected):
    assert check_ray_address(address) == expected


BAD_ADDRESSES = ["not-an-address", "ray://", "ray://head", "head:", "head:0", "head:65536", ":6379",
                 "http://head:8265", "head:6379/x", " head:6379", "AUTO", "", "ray://head:10001:1", "h ost:1"]


@pytest.mark.parametrize("address", BAD_ADDRESSES)
def test_malformed_ray_addresses_are_refused(address):
    with pytest.raises(UsageError, match="is not a Ray address; give ray://HOST:PORT"):
        check_ray_address(address)


@pytest.mark.skipif(not HAS_RAY, reason="needs ray")
@pytest.mark.parametrize("how", ["--ray-address", "RAY_ADDRESS"])
@pytest.mark.parametrize("address", ["not-an-address", "ray://"])
def test_a_malformed_ray_address_is_one_line_warm_or_cold(how, address):
    sweep = ["sweep", "add", "--grid", "BLOCK_SIZE=256", "--arch", "sm_90"]
    assert run_cli(*sweep, "-j", "1").exit_code == 0  # the point is warm now: ray.init is never called
    given = ["--ray-address", address] if how == "--ray-address" else []
    env = {"RAY_ADDRESS": address} if how == "RAY_ADDRESS" else None
    result = run_cli(*sweep, "-j", "2", "--executor", "ray", *given, env=env)
    assert_one_stderr_line_error(result, 2, f"{how} '{address}' is not a Ray address")


@pytest.mark.skipif(not HAS_RAY, reason="needs ray")
@pytest.mark.parametrize("address, says", [("127.0.0.1:1", "Connection refused"),
                                           ("ray://127.0.0.1:1", "Connection refused"),
                                           ("no-such-host.invalid:6379", "")])
def test_an_unreachable_ray_address_is_one_line_naming_it(fresh_cache, address, says):
    result = run_cli("sweep", "add", "--grid", "BLOCK_SIZE=512,1024", "--arch", "sm_90", "-j", "2", "--executor", "ray",
                     "--ray-address", address)
    assert_one_stderr_line_error(result, 2, f"cannot reach the Ray cluster at {address}", says)


# --- 6. signals: the whole worker tree ends, the finished rows are printed, 128 + the signal -----------

def _group(pgid: int) -> dict[int, tuple[int, str]]:
    """Live (not zombie) processes of a process group: pid -> (parent pid, command line), from /proc."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                stat = file.read().decode(errors="replace")
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                command = file.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if fields[0] not in ("Z", "X") and int(fields[2]) == pgid:
            found[int(entry)] = (int(fields[1]), command)
    return found


def _wait_for(driver: subprocess.Popen, what: str, limit: float = 60) -> None:
    """Until a pool worker runs (a process of the group whose parent is the forkserver), or one of their
    children (a compile's ptxas) does: points are compiling."""
    start = time.monotonic()
    while time.monotonic() - start < limit and driver.poll() is None:
        group = _group(driver.pid)
        helpers = {pid for pid, (parent, _) in group.items() if parent == driver.pid}
        workers = {pid for pid, (parent, _) in group.items() if parent in helpers}
        if workers and (what == "worker" or any(parent in workers for parent, _ in group.values())):
            return
        time.sleep(0.005)


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the process table from /proc")
@pytest.mark.parametrize("signum, whole_group, wait_for", [
    (signal.SIGTERM, False, "worker"),  # `kill -TERM PID`
    (signal.SIGTERM, True, "ptxas"),  # `kill -TERM -PGID`, while a worker's ptxas runs
    (signal.SIGHUP, True, "worker"),  # the terminal closed
    (signal.SIGINT, True, "worker"),  # Ctrl-C
], ids=["term-pid", "term-group-mid-ptxas", "hup-group", "int-group"])
def test_a_signal_ends_the_worker_tree_and_keeps_the_finished_rows(tmp_path, signum, whole_group, wait_for):
    env = {**os.environ, "TTINSPECT_CACHE_DIR": str(tmp_path / "cache"), "TRITON_CACHE_DIR": str(tmp_path / "triton")}
    argv = [sys.executable, "-m", "ttinspect", "sweep", "add", "--grid", "BLOCK_SIZE=64..4096:x2", "--grid",
            "num_warps=1,2,4,8", "--arch", "sm_80", "-j", "2", "--json"]  # 28 cold points: seconds of work
    driver = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)  # its own process group: ours is not signalled
    try:
        _wait_for(driver, wait_for)
        if driver.poll() is not None:
            pytest.skip("the sweep finished before the signal")
        if whole_group:
            os.killpg(driver.pid, signum)
        else:
            driver.send_signal(signum)
        out, err = driver.communicate(timeout=60)
    finally:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
            driver.communicate()
    name = signal.Signals(signum).name
    reason = "interrupted" if signum == signal.SIGINT else rf"terminated \({name}\)"
    assert driver.returncode == 128 + signum, err
    assert "Traceback" not in err and "leaked" not in err and "resource_tracker" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1 and re.fullmatch(rf"ttinspect: {reason}: (\d+) of 28 points finished", lines[0]), err
    data = json.loads(out)  # what finished is printed
    assert data["interrupted"] is True and len(data["rows"]) == int(lines[0].split(": ")[-1].split()[0])
    deadline = time.monotonic() + 10
    while _group(driver.pid) and time.monotonic() < deadline:  # the forkserver and the tracker end at EOF
        time.sleep(0.05)
    assert _group(driver.pid) == {}, f"left behind: {_group(driver.pid)}"


def test_terminated_in_process_keeps_rows_and_its_signal():
    """The library's half: errors.Terminated (SIGTERM's exception) stops the sweep like Ctrl-C, and the
    result remembers which signal it was."""
    from ttinspect.sweep.run import plan, run_sweep

    options = {"settings": {}, "args": {}, "signature": None, "config": None}
    axes, points = plan("add", ["BLOCK_SIZE=256,512,1024"], "sm_80", options)

    def stop(row):
        raise Terminated(signal.SIGHUP)

    result = run_sweep("add", axes, points, options, jobs=1, on_row=stop, progress=False)
    assert result.interrupted and len(result.rows) == 1 and result.total == 3
    assert result.exit_code == 129 and result.stop_reason == "terminated (SIGHUP)"


def _ray_processes() -> list[str]:
    """Command lines of Ray's own processes (in sessions of their own, not in the driver's group)."""
    names = ("gcs_server", "raylet", "ray::", "default_worker.py", "dashboard")
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                command = file.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if any(name in command for name in names):
            found.append(command[:120])
    return found


@pytest.mark.slow
@pytest.mark.ray
@pytest.mark.skipif(not HAS_RAY or not os.path.isdir("/proc"), reason="needs ray and /proc")
def test_sigterm_during_a_ray_sweep_cancels_the_tasks_and_stops_the_local_ray(tmp_path):
    """Best effort for Ray: ray.init's own SIGTERM handler (sys.exit(1)) is put back to ours, Ray's wait
    turning our Terminated into a bare KeyboardInterrupt is undone, the tasks are cancelled and the local Ray
    shut down: exit 143, the rows that finished printed, no Ray process of ours left."""
    import shutil
    import tempfile

    before = len(_ray_processes())
    # Ray's session folder (logs, sockets) in a short folder of the test's own, removed at the end (tmp_path is
    # too long for its AF_UNIX socket paths, 107 bytes); no auth token, which Ray would write to ~/.ray
    ray_tmp = tempfile.mkdtemp(prefix="tt-ray-")
    env = {**os.environ, "TTINSPECT_CACHE_DIR": str(tmp_path / "cache"), "TRITON_CACHE_DIR": str(tmp_path / "triton"),
           "RAY_TMPDIR": ray_tmp, "RAY_AUTH_MODE": "disabled"}
    argv = [sys.executable, "-m", "ttinspect", "sweep", "add", "--grid", "BLOCK_SIZE=64..4096:x2", "--grid",
            "num_warps=1,2,4,8", "--arch", "sm_80", "-j", "2", "--executor", "ray", "--json"]
    try:
        _sigterm_a_ray_sweep(argv, env, before)
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)


def _sigterm_a_ray_sweep(argv: list[str], env: dict[str, str], before: int) -> None:
    driver = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        start = time.monotonic()
        while driver.poll() is None and time.monotonic() - start < 120:
            if any("ray::compile_point" in command for command in _ray_processes()):
                break  # a task is compiling
            time.sleep(0.05)
        if driver.poll() is not None:
            pytest.skip("the sweep finished (or failed) before the signal")
        driver.send_signal(signal.SIGTERM)
        out, err = driver.communicate(timeout=120)
    finally:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
            driver.communicate()
    assert driver.returncode == 143, err
    assert "Traceback" not in err and re.fullmatch(r"ttinspect: terminated \(SIGTERM\): \d+ of 28 points finished",
                                                   err.splitlines()[-1]), err
    assert json.loads(out)["interrupted"] is True
    deadline = time.monotonic() + 30
    while len(_ray_processes()) > before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(_ray_processes()) <= before, _ray_processes()

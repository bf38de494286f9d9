"""`ttinspect sweep`: grid parsing, the --where language, failure rows, the process pool, the shared
cache under concurrent compiles, autotune-config output, CSV/JSON, a user's file, and Ray (local)."""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli

from ttinspect.errors import UsageError
from ttinspect.sweep.grid import expand, parse_arch_list, parse_axis, parse_grid, parse_values
from ttinspect.sweep.where import Where, WhereError

FILE = Path(__file__).parent / "data" / "user_kernels" / "my_mm.py"
ADD_ARGS = ["--arg", "x_ptr=*fp32", "--arg", "y_ptr=*fp32", "--arg", "out_ptr=*fp32", "--arg", "n=4096"]


def ok_json(*args: str) -> dict:
    result = run_cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --- the grid ----------------------------------------------------------------------------------------

def test_grid_values_lists_ranges_and_doubling():
    assert parse_values("32,64,128") == [32, 64, 128]
    assert parse_values("2..6") == [2, 3, 4, 5, 6]  # every integer, both ends
    assert parse_values("16..128:x2") == [16, 32, 64, 128]
    assert parse_values("1..9:+4") == [1, 5, 9]
    assert parse_values("1,2,8..32:x2,2") == [1, 2, 8, 16, 32]  # a value given twice is one point
    assert parse_values("true,tl.float16")[0] is True
    assert parse_axis("config=all").values == ("all",)
    for bad in ("6..2", "1..4:x1", "0..8:x2", "a..b", "1,,2"):
        with pytest.raises(UsageError):
            parse_values(bad, "K")
    for bad in ("BLOCK", "=1,2", "BLOCK=", "1X=2", "config=0", "config=a"):
        with pytest.raises(UsageError):
            parse_axis(bad)
    with pytest.raises(UsageError, match="given twice"):
        parse_grid(["A=1", "A=2"])


def test_expand_order_and_targets():
    axes = parse_grid(["A=1,2", "B=10..11"])
    points = expand(axes, parse_arch_list("sm_80,sm_90"))
    assert len(points) == 8
    assert points[0] == ({"A": 1, "B": 10}, "sm_80") and points[1] == ({"A": 1, "B": 11}, "sm_80")
    assert points[-1] == ({"A": 2, "B": 11}, "sm_90")
    assert expand(parse_grid(["config=all"]), [None], 3) == [({"config": n}, None) for n in (1, 2, 3)]
    # config=all per target: a file may list other configs for another GPU
    assert expand(parse_grid(["config=all"]), ["sm_90", "gfx942"], {"sm_90": 2, "gfx942": 1}) == [
        ({"config": 1}, "sm_90"), ({"config": 2}, "sm_90"), ({"config": 1}, "gfx942")]
    assert parse_arch_list(None) == [None]


# --- --where -----------------------------------------------------------------------------------------

ROW = {"registers": 64, "spills": 0, "occupancy": 31, "tensor_core_path": "wgmma", "fits": True,
       "pipeline_depth": None, "BLOCK_SIZE_N": 32}


@pytest.mark.parametrize("text, expected", [
    ("spills == 0 and occupancy >= 25", True),
    ("spills == 0 and occupancy >= 50", False),
    ("registers < 64 or tensor_core_path == 'wgmma'", True),
    ('tensor_core_path != "mma"', True),
    ("not (registers > 100) and fits", True),
    ("fits == false", False),
    ("pipeline_depth >= 2", False),  # unknown: a comparison with it is false
    ("not pipeline_depth >= 2", True),
    ("pipeline_depth == none", True),
    ("BLOCK_SIZE_N <= 64 and BLOCK_SIZE_N >= 32.0", True),
    ("occupancy >= 25%", True),
    ("registers == 'wgmma'", False),  # a number against a string: not equal
    ("((spills == 0))", True),
])
def test_where_evaluates(text, expected):
    assert Where(text)(ROW) is expected


@pytest.mark.parametrize("text", [
    "__import__('os').system('true')", "registers.real > 1", "len(registers) > 1", "registers[0] == 1",
    "registers +  1 > 2", "spills == 0 and", "(spills == 0", "spills === 0", "lambda: 1", "", "and",
    "registers == 1 == 1", "__class__ == 1", "spills ; 1",
])
def test_where_rejects_anything_but_the_language(text):
    with pytest.raises(WhereError):
        Where(text)


def test_where_unknown_names_are_refused_with_the_nearest():
    with pytest.raises(WhereError, match="did you mean registers"):
        Where("regsters > 1").check_names(set(ROW))


# --- the command -------------------------------------------------------------------------------------

def test_failure_rows_and_filters_and_csv():
    """A non-power-of-two block is a row with Triton's reason; the sweep goes on."""
    data = ok_json("sweep", "add", "--grid", "BLOCK_SIZE=100,256", "--arch", "sm_90", "-j", "1")
    rows = {r["point"]["BLOCK_SIZE"]: r for r in data["rows"]}
    assert "power of 2" in rows[100]["error"] and rows[100]["facts"] == {}
    assert rows[256]["error"] is None and rows[256]["facts"]["fits"] is True
    assert isinstance(rows[256]["facts"]["occupancy"], (int, float)) and rows[256]["facts"]["registers"] > 0
    assert data["failed"] == 1 and data["points"] == 2
    kept = ok_json("sweep", "add", "--grid", "BLOCK_SIZE=100,256", "--arch", "sm_90", "-j", "1",
                   "--where", "ok and registers > 0")
    assert [r["point"]["BLOCK_SIZE"] for r in kept["rows"]] == [256]
    assert kept["warm"] == 1  # the compiled one is in the cache now; the failed one was tried again
    out = run_cli("sweep", "add", "--grid", "BLOCK_SIZE=100,256", "--arch", "sm_90", "-j", "1", "--csv",
                  "--sort", "-registers")
    assert out.exit_code == 0, out.output
    table = list(csv.DictReader(io.StringIO(out.stdout)))
    assert [r["BLOCK_SIZE"] for r in table] == ["256", "100"]  # unknowns last
    assert table[0]["fits"] == "true" and "power of 2" in table[1]["error"]
    text = run_cli("sweep", "add", "--grid", "BLOCK_SIZE=100,256", "--arch", "sm_90", "-j", "1")
    flat = " ".join(text.stdout.split())  # the error is printed under the table, wrapped to the width
    assert text.exit_code == 0 and "error 1: " in flat and "power of 2" in flat and "regs" in text.stdout


def test_bad_where_is_one_line_before_compiling():
    result = run_cli("sweep", "add", "--grid", "BLOCK_SIZE=999", "--where", "__import__('os')")
    assert result.exit_code == 2
    assert result.stderr.startswith("ttinspect: error: --where") and len(result.stderr.splitlines()) == 1
    result = run_cli("sweep", "add", "--grid", "BLOCK_SIZE=256", "--arch", "sm_90", "-j", "1", "--where",
                     "registrs > 1")
    assert result.exit_code == 2 and "did you mean" in result.stderr


def test_plot_without_matplotlib_says_how_to_get_it(tmp_path):
    pytest.importorskip("matplotlib") if False else None
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        result = run_cli("sweep", "add", "--grid", "BLOCK_SIZE=256,512", "--grid", "num_warps=4", "--arch", "sm_90",
                         "-j", "1", "--plot", str(tmp_path / "p.png"))
        assert result.exit_code == 2 and "pip install matplotlib" in result.stderr
    else:
        result = run_cli("sweep", "add", "--grid", "BLOCK_SIZE=256,512", "--grid", "num_warps=4,8", "--arch", "sm_90",
                         "-j", "1", "--plot", str(tmp_path / "p.png"))
        assert result.exit_code == 0 and (tmp_path / "p.png").stat().st_size > 0


def test_autotune_configs_exec_into_triton_configs():
    import triton

    result = run_cli("sweep", "opt", "--grid", "config=5..6", "--arch", "sm_90", "-j", "1", "--autotune-configs",
                     "--where", "spills == 0")
    assert result.exit_code == 0, result.output
    namespace: dict = {}
    exec("import triton\nimport triton.language as tl\nconfigs = [\n" + result.stdout + "]", namespace)
    configs = namespace["configs"]
    assert configs and all(isinstance(c, triton.Config) for c in configs)
    winner = configs[-1]  # opt's 6th config: the doc's winner
    assert winner.kwargs == {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}
    assert winner.num_warps == 4 and winner.num_stages == 4


def test_pool_of_two_workers_and_warm_rerun():
    args = ["sweep", "add", "--grid", "BLOCK_SIZE=256,512,1024", "--grid", "num_warps=2", "--arch", "sm_80",
            "-j", "2"]
    first = ok_json(*args)
    assert first["compiled"] == 3 and first["failed"] == 0
    assert len({r["worker"] for r in first["rows"]}) >= 1
    for row in first["rows"]:
        assert Path(row["entry"]).is_dir()
    again = ok_json(*args)
    assert again["warm"] == 3 and again["compiled"] == 0
    assert [r["facts"] for r in again["rows"]] == [r["facts"] for r in first["rows"]]


def test_user_file_kernel():
    data = ok_json("sweep", f"{FILE}:add_kernel", *ADD_ARGS, "--grid", "BLOCK=256,512", "--arch", "sm_90", "-j", "1")
    assert [r["error"] for r in data["rows"]] == [None, None]
    assert [r["config"]["BLOCK"] for r in data["rows"]] == [256, 512]


def _compile_same_point(cache_dir: str, barrier, queue) -> None:
    import os

    os.environ["TTINSPECT_CACHE_DIR"] = cache_dir
    from ttinspect.sweep.task import compile_point

    barrier.wait()
    queue.put(compile_point("add", {"BLOCK_SIZE": 128, "num_warps": 1}, "sm_86"))


def test_two_processes_compiling_the_same_point_share_one_entry(tmp_path):
    from ttinspect.caches import store as cache

    context = multiprocessing.get_context("spawn")
    barrier, queue = context.Barrier(2), context.Queue()
    workers = [context.Process(target=_compile_same_point, args=(str(tmp_path), barrier, queue)) for _ in range(2)]
    for worker in workers:
        worker.start()
    rows = [queue.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    assert [r["error"] for r in rows] == [None, None]
    assert rows[0]["entry"] == rows[1]["entry"] and rows[0]["facts"] == rows[1]["facts"]
    entries = [p for p in tmp_path.glob("*/*") if p.is_dir()]
    assert len(entries) == 1 and not [p for p in tmp_path.rglob(".*")], list(tmp_path.rglob("*"))
    entry = entries[0]
    assert cache.whole(entry)
    for name in cache.manifest(entry):
        cache.read(entry, name)  # every file checks out against its digest


def test_interrupt_keeps_what_finished():
    from ttinspect.sweep.run import plan, run_sweep

    options = {"settings": {}, "args": {}, "signature": None, "config": None}
    axes, points = plan("add", ["BLOCK_SIZE=256,512,1024"], "sm_80", options)
    seen = []

    def interrupt(row):
        seen.append(row)
        if len(seen) == 2:
            raise KeyboardInterrupt

    result = run_sweep("add", axes, points, options, jobs=1, on_row=interrupt, progress=False)
    assert result.interrupted and len(result.rows) == 2 and result.total == 3


def test_facts_kept_beside_the_entry_read_back_equal():
    from ttinspect.engine.builds import build
    from ttinspect.report.collect import _computed_report, facts_file_name, report_from_build

    built = build("add", {"BLOCK_SIZE": 256}, arch="sm_90")
    first = report_from_build(built)
    assert (built.artifacts.directory / facts_file_name()).is_file()
    again = report_from_build(built)
    assert again.facts == first.facts == _computed_report(built, True).facts
    assert again.main_loop_ptx == first.main_loop_ptx


def test_help_imports_neither_ray_matplotlib_nor_triton():
    code = ("import sys\nfrom ttinspect.cli.main import cli\n"
            "for args in (['--help'], ['sweep', '--help']):\n"
            "    try:\n        cli(args)\n    except SystemExit:\n        pass\n"
            "bad = [m for m in ('ray', 'matplotlib', 'triton', 'torch') if m in sys.modules]\n"
            "assert not bad, bad\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "--grid" in done.stdout and "--executor" in done.stdout


@pytest.mark.ray
def test_ray_local_ships_entries_home(tmp_path, monkeypatch):
    """A local Ray whose workers use another cache directory stands for a cluster: each worker ships the
    entry's files, the driver stores them, and the point is warm here afterwards."""
    import shutil
    import tempfile

    ray = pytest.importorskip("ray")
    from ttinspect.caches import store as cache
    from ttinspect.sweep.run import plan, run_sweep

    # Ray's session folder in a short folder of the test's own (tmp_path is too long for its sockets), and no
    # auth token (Ray writes it to ~/.ray): nothing left in HOME or /tmp/ray
    ray_tmp = tempfile.mkdtemp(prefix="tt-ray-")
    monkeypatch.setenv("RAY_TMPDIR", ray_tmp)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    try:
        _ship_home(ray, cache, plan, run_sweep, tmp_path)
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)


def _ship_home(ray, cache, plan, run_sweep, tmp_path) -> None:
    remote_cache = tmp_path / "remote-cache"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": {"TTINSPECT_CACHE_DIR": str(remote_cache), **cache.compile_env()}})
    try:
        options = {"settings": {}, "args": {}, "signature": None, "config": None}
        axes, points = plan("add", ["BLOCK_SIZE=64,128"], "sm_89", options)
        result = run_sweep("add", axes, points, options, executor="ray", jobs=2, progress=False)
    finally:
        ray.shutdown()
    assert result.compiled == 2 and result.failed == 0, result.rows
    for row in result.rows:
        assert row.get("host") and "files" not in row
        entry = Path(row["entry"])
        assert entry.is_relative_to(cache.cache_root()) and cache.whole(entry)
        assert any(entry.glob("kernel.facts-*.json"))
    again = run_sweep("add", axes, points, options, executor="ray", jobs=2, progress=False)
    assert again.warm == 2 and again.compiled == 0  # warm here: no Ray started at all


def test_piped_diff_is_kept_and_a_damaged_copy_is_rendered_again(tmp_path):
    """A warm piped `diff` prints the text kept from last time; a damaged kept text is never printed."""
    import os

    env = {**os.environ, "TTINSPECT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("FORCE_COLOR", None)

    def diff() -> str:
        done = subprocess.run([sys.executable, "-m", "ttinspect", "diff", "naive", "opt"], capture_output=True,
                              text=True, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    first = diff()  # cold: computes and renders
    second = diff()  # warm: renders and keeps
    kept = [p for p in (tmp_path / "cache" / "rendered").rglob("*") if p.is_file() and p.suffix != ".sha256"]
    assert first == second and "pipeline" in first and kept
    assert diff() == first  # read back
    for path in kept:
        path.write_text("not the table\n")
    assert diff() == first


def test_huge_or_out_of_range_grids_are_refused_before_anything_compiles():
    big = run_cli("sweep", "opt", "--grid", "num_stages=1..999999999")
    assert big.exit_code == 2 and "more than" in big.output
    bad = run_cli("sweep", "opt", "--grid", "num_stages=1..100")
    assert bad.exit_code == 2 and "--grid num_stages=33: must be an integer from 0 to 32" in bad.output

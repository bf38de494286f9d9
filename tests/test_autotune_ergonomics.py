"""Autotuned kernels as big libraries write them (issue 30, points 5 and 6): the `--config all` table read at
80 columns, every config failing, `diff` of two configs, a short name and a wrapped config for a kernel
with a dozen constexprs, and a dtype constexpr printed as Triton writes it. The kernels are of those shapes,
written for these tests (tests/data/autotune_shapes/)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ttinspect.targets.releases import installed_version
from cli_helpers import assert_one_line_error, run_cli, run_cli_ok
from ttinspect_kernels.registry import OPT_AUTOTUNE_CONFIGS

SHAPES = Path(__file__).parent / "data" / "autotune_shapes"
MATMUL = f"{SHAPES / 'tuned_matmul.py'}:tuned_matmul"  # 16 configs over 9 keys, 4 of them the same in all
MATMUL_ARGS = [x for k, v in (("a_ptr", "*bf16"), ("b_ptr", "*bf16"), ("c_ptr", "*bf16"), ("M", 4096), ("N", 4096),
                              ("K", 4096), ("stride_am", 4096), ("stride_ak", 1), ("stride_bk", 4096),
                              ("stride_bn", 1), ("stride_cm", 4096), ("stride_cn", 1)) for x in ("--arg", f"{k}={v}")]
FAILING = f"{SHAPES / 'failing_configs.py'}:scale"
SOME_FAILING = f"{SHAPES / 'some_failing.py'}:shift"
ELEMENTWISE = ["--signature", "*fp32:16, *fp32:16, i32:16, fp32"]
NORM = f"{SHAPES / 'many_constexprs.py'}:fused_norm"  # 12 constexprs
NORM_SIGNATURE = ["--signature", "*bf16:16, *bf16:16, *fp32:16, *bf16:16, i32:16, fp32"]
NORM_SETS = [x for item in ("NUM_ROWS_PER_PROGRAM=4", "HAS_WEIGHT=true", "HAS_BIAS=true", "IS_RMS_NORM=false",
                            "CASTING_MODE=llama", "OFFSET=0.0", "USE_FAST_RSQRT=true", "STORE_RSTD=true",
                            "ELEMENTWISE_AFFINE=true", "ACCUMULATE_IN_FP32=true", "compute_type=tl.bfloat16")
             for x in ("--set", item)]
NOT_AS_TRITON_WRITES = ("TlDtype(", "triton.language.", "=bf16", "=fp16")


def within(text: str, width: int) -> None:
    wide = [line for line in text.splitlines() if len(line) > width]
    assert not wide, f"{len(wide)} lines wider than {width}: {wide[:2]}"


@pytest.fixture(scope="module")
def matmul_rows() -> list[dict]:
    return json.loads(run_cli_ok("report", MATMUL, *MATMUL_ARGS, "--config", "all", "--arch", "sm_90", "--json"))


# --- 1. the --config all table -----------------------------------------------------------------------------

def _expected_cells(row: dict, varying: list[str]) -> list[str]:
    facts = row["facts"]
    occupancy = facts["occupancy"]
    return ([str(row["config"][k]) for k in varying]
            + [str(facts["registers"]), str(facts["spills"]), str(facts["shared_memory"]),
               "yes" if facts["fits"] else "no", str(facts["blocks_per_sm"]),
               f"{occupancy:.0%}" if isinstance(occupancy, float) else str(occupancy),
               str(facts["pipeline_depth"]), facts["tensor_core_path"]])


@pytest.mark.parametrize("width", [80, 120])
def test_config_table_is_readable_at_the_width(matmul_rows, width):
    """The constant keys once above, a column per varying key, rows numbered under one title; every cell
    whole on its row's one line (no column folded to slivers)."""
    text = run_cli_ok("report", MATMUL, *MATMUL_ARGS, "--config", "all", "--arch", "sm_90", "--width", width)
    within(text, width)
    lines = text.splitlines()
    assert lines[0] == f"16 autotune configs of tuned_matmul.py:tuned_matmul · sm_90 · Triton {installed_version()}"
    same = " ".join(lines[1:3])
    for constant in ("GROUP_SIZE_M=8", "ACTIVATION=none", "compute_type=tl.bfloat16", "num_ctas=1"):
        assert constant in same  # said once, above the table ...
        assert text.count(constant) == 1  # ... and nowhere else
    varying = [k for k in matmul_rows[0]["config"] if len({json.dumps(r["config"][k]) for r in matmul_rows}) > 1]
    assert varying == ["BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "num_warps", "num_stages"]
    for number, row in enumerate(matmul_rows, start=1):
        found = [line for line in lines if line.split()[:1] == [f"#{number}"]]
        assert len(found) == 1, f"config #{number}: {found}"
        assert found[0].split()[1:] == _expected_cells(row, varying), found[0]
    assert "tuned_matmul.py:tuned_matmul#" not in text  # the kernel's name is said once, in the title


def test_config_table_too_narrow_becomes_a_block_per_config(matmul_rows):
    text = run_cli_ok("report", MATMUL, *MATMUL_ARGS, "--config", "all", "--arch", "sm_90", "--width", 40)
    within(text, 40)
    blocks = re.split(r"^(?=#\d+ )", text, flags=re.M)[1:]
    assert len(blocks) == 16
    for block, row in zip(blocks, matmul_rows, strict=True):
        flat = " ".join(block.split())
        assert f"BM={row['config']['BLOCK_SIZE_M']} " in flat and f"warps={row['config']['num_warps']}" in flat
        assert f"regs {row['facts']['registers']} " in flat
        assert f"tensor cores {row['facts']['tensor_core_path']}" in flat


# --- 2. configs that fail ----------------------------------------------------------------------------------

def test_every_config_failing_exits_with_their_code_and_says_each_error_once():
    result = run_cli("report", FAILING, *ELEMENTWISE, "--config", "all", "--width", 80)
    assert result.exit_code == 3, result.output  # every config rejected by Triton: errors.EXIT_COMPILE
    text = result.output
    within(text, 80)
    assert "failed: 4 of 4 configs, 2 distinct errors" in text
    flat = " ".join(text.split())
    assert "[1] #1-#3 " in flat and "[2] #4 " in flat  # which configs hit each
    assert flat.count("arange's range must be a power of 2") == 1  # once each, whole: the message ...
    assert flat.count("offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)") == 1  # ... and its line
    assert flat.count("BLOCK is at most 1024: one row of x per program") == 2  # the message, quoted in its line
    assert flat.count('tl.static_assert(BLOCK <= 1024, "BLOCK is at most 1024: one row of x per program")') == 1
    assert "…" not in text and "Traceback" not in text
    rows = run_cli("report", FAILING, *ELEMENTWISE, "--config", "all", "--json")
    assert rows.exit_code == 3 and all(r["error"] for r in json.loads(rows.output))


def test_some_configs_failing_is_a_finding_of_the_table():
    result = run_cli("report", SOME_FAILING, *ELEMENTWISE, "--config", "all", "--width", 80)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("#2 ") and "failed: error [1] below" in line for line in lines)
    assert any(line.startswith("#4 ") and "failed: error [2] below" in line for line in lines)
    assert any(line.split()[:2] == ["#1", "64"] for line in lines)  # the configs that compiled: a row each
    flat = " ".join(result.output.split())
    assert "failed: 2 of 4 configs, 2 distinct errors" in flat
    assert "must be one of 1, 2, 4, 8, 16, 32" in flat  # the refused warp count, whole


# --- 3. diff --config ---------------------------------------------------------------------------------------

def _diff_json(*args) -> dict:
    return json.loads(run_cli_ok("diff", *args, *MATMUL_ARGS, "--arch", "sm_90", "--json"))


def test_diff_two_configs_of_one_kernel(matmul_rows):
    data = _diff_json(MATMUL, "--config", "2", "--config", "4")
    assert (data["a"]["label"], data["b"]["label"]) == ("tuned_matmul.py:tuned_matmul#2",
                                                        "tuned_matmul.py:tuned_matmul#4")
    warps = (matmul_rows[1]["config"]["num_warps"], matmul_rows[3]["config"]["num_warps"])
    assert data["facts"]["num_warps"] == {"a": warps[0], "b": warps[1], "changed": True} and warps == (4, 8)
    text = run_cli_ok("diff", MATMUL, "--config", "2", "--config", "4", *MATMUL_ARGS, "--arch", "sm_90", "--width", 100)
    assert text.splitlines()[0].startswith("tuned_matmul.py:tuned_matmul@sm_90: #2 vs #4 · Triton")


@pytest.mark.parametrize("configs, labels", [
    (["--config", "3"], ("#3", "#3")),  # one --config: both sides
    (["--config", "1", "--config", "3"], ("#1", "#3")),  # one per side
])
def test_diff_config_of_two_references(configs, labels):
    data = json.loads(run_cli_ok("diff", f"{MATMUL}@sm_80", f"{MATMUL}@sm_90", *configs, *MATMUL_ARGS, "--json"))
    assert (data["a"]["label"][-2:], data["b"]["label"][-2:]) == labels
    assert (data["a"]["target"], data["b"]["target"]) == ("sm_80", "sm_90")


@pytest.mark.parametrize("args, fragments", [
    ([MATMUL, "--config", "0", "--config", "4"], ("--config 0", "16 autotune config(s)", "numbered from 1")),
    ([MATMUL, "--config", "2", "--config", "17"], ("--config 17", "16 autotune config(s)", "numbered from 1")),
    ([MATMUL, MATMUL], ("autotune'd over 16 configs", "--config N (1-16)")),  # the bare reference
    ([MATMUL], ("one kernel and two configs", "--config 1 --config 2")),
    ([MATMUL, "--config", "2"], ("one kernel and two configs",)),
    ([MATMUL, MATMUL, "--config", "1", "--config", "2", "--config", "3"], ("once (both sides) or twice",)),
    ([MATMUL, "--config", "all", "--config", "2"], ("use `ttinspect report REF --config all`",)),
])
def test_diff_config_refusals_are_one_line(args, fragments):
    assert_one_line_error(run_cli("diff", *args, *MATMUL_ARGS, "--arch", "sm_90"), 2, *fragments)


def test_diff_config_best_works_as_for_report(tmp_path):
    # a kernel of the user's: `best` is refused alike by report and diff
    report = run_cli("report", MATMUL, "--config", "best", *MATMUL_ARGS)
    diff = run_cli("diff", MATMUL, "--config", "best", "--config", "2", *MATMUL_ARGS)
    assert assert_one_line_error(diff, 2) == assert_one_line_error(report, 2, "--config best is for the shipped")
    # a shipped variant with a saved winner: `best` is that winner's config
    (tmp_path / "autotune").mkdir()
    (tmp_path / "autotune" / "opt.json").write_text(json.dumps({"best": {"config": dict(OPT_AUTOTUNE_CONFIGS[2])}}))
    env = {"TTINSPECT_CACHE_DIR": str(tmp_path)}
    same = json.loads(run_cli_ok("diff", "opt", "--config", "best", "--config", "3", "--json", env=env))
    assert same["changes"] == []  # the winner is config 3
    other = json.loads(run_cli_ok("diff", "opt", "--config", "best", "--config", "1", "--json", env=env))
    assert other["changes"]


# --- 4. a kernel with a dozen constexprs: a short name and a wrapped config ------------------------------

def _norm_diff(*extra) -> str:
    return run_cli_ok("diff", f"{NORM}:BLOCK_SIZE=1024", f"{NORM}:BLOCK_SIZE=2048", *NORM_SIGNATURE, *NORM_SETS,
                      "--arch", "sm_90", *extra)


def test_diff_header_of_many_constexprs_names_the_differing_key():
    text = _norm_diff("--width", "100")
    within(text, 100)
    lines = text.splitlines()
    header = lines[:lines.index("configuration")]  # before the first group of facts
    assert len(header) <= 3, header
    head = "\n".join(header)
    assert "BLOCK_SIZE=1024" in head and "BLOCK_SIZE=2048" in head and "many_constexprs.py:fused_norm" in head
    assert "HAS_WEIGHT" not in head and "NUM_ROWS_PER_PROGRAM" not in head  # what both share is not repeated
    foot = " ".join(text[text.index("both sides:"):].split())  # ... but said once, at the foot, wrapped
    for item in ("NUM_ROWS_PER_PROGRAM=4", "CASTING_MODE=llama", "ACCUMULATE_IN_FP32=True", "compute_type=tl.bfloat16"):
        assert item in foot


def test_html_of_many_constexprs_has_a_short_title_and_wraps(tmp_path):
    out = tmp_path / "norm.html"
    run_cli_ok("html", f"{NORM}:BLOCK_SIZE=1024", f"{NORM}:BLOCK_SIZE=2048", *NORM_SIGNATURE, *NORM_SETS,
               "--arch", "sm_90", "--no-passes", "--stages", "ptx", "-o", out)
    page = out.read_text()
    title = re.search(r"<title>(.*?)</title>", page).group(1)
    assert title == "ttinspect: many_constexprs.py:fused_norm@sm_90: BLOCK_SIZE=1024 vs BLOCK_SIZE=2048"
    assert re.search(r"<h1>(.*?)</h1>", page).group(1) == title  # the config is a block of its own ...
    config_row = re.search(r"<tr><th>config</th><td>(.*?)</td>", page).group(1)
    assert "<code>HAS_WEIGHT=True</code> <code>" in config_row  # ... one item after another, broken between
    assert "<code>compute_type=tl.bfloat16</code>" in config_row
    nav = re.search(r"<nav>(.*?)</nav>", page).group(1)
    assert "BLOCK_SIZE=1024: stages" in nav and "HAS_WEIGHT" not in nav
    css = re.sub(r"/\*.*?\*/", "", re.search(r"<style>(.*?)</style>", page, flags=re.S).group(1), flags=re.S)
    rules = re.findall(r"([^{}]+)\{[^{}]*overflow-wrap:\s*anywhere", css)
    assert rules and {"h1", "nav", "td", "th"} <= {s.strip() for s in rules[0].split(",")}
    one = tmp_path / "one.html"  # one kernel alone: its name, and how many settings the config row lists
    run_cli_ok("html", f"{NORM}:BLOCK_SIZE=1024", *NORM_SIGNATURE, *NORM_SETS, "--arch", "sm_90", "--no-passes",
               "--stages", "ptx", "-o", one)
    assert "<title>ttinspect: many_constexprs.py:fused_norm +12 settings (sm_90)</title>" in one.read_text()


# --- 5. a dtype constexpr, as Triton writes it -----------------------------------------------------------

def _surfaces() -> dict[str, str]:
    """Every place a config value is shown, for a dtype from an autotune config (Triton's own dtype
    object) and one given with --set (tl.float16)."""
    one = [MATMUL, "--config", "2", *MATMUL_ARGS, "--arch", "sm_90"]
    given = [*one, "--set", "compute_type=tl.float16"]
    return {
        "dump header, cold then warm": "".join(run_cli_ok("dump", *one, "--stage", "ttir").splitlines(True)[0]
                                               for _ in range(2)),
        "dump header of --set": run_cli_ok("dump", *given, "--stage", "ttir").splitlines()[0],
        "report --json config": json.dumps(json.loads(run_cli_ok("report", *given, "--json"))["config"]),
        "report title": run_cli_ok("report", *given).splitlines()[0],
        "config rows --json": json.dumps([r["config"] for r in json.loads(run_cli_ok(
            "report", MATMUL, *MATMUL_ARGS, "--config", "all", "--arch", "sm_90", "--json"))]),
        "diff foot": _norm_diff("--width", "100").split("both sides:")[1],
        "list --json of the shipped variants": run_cli_ok("list", "--json"),
    }


def test_dtype_config_values_read_as_triton_writes_them():
    surfaces = _surfaces()
    for where, text in surfaces.items():
        wrong = [bad for bad in NOT_AS_TRITON_WRITES if bad in text]
        assert not wrong, f"{where}: {wrong} in {text[:300]}"
    assert surfaces["dump header, cold then warm"].count("compute_type=tl.bfloat16") == 2
    assert "compute_type=tl.float16" in surfaces["dump header of --set"]
    assert '"compute_type": "tl.float16"' in surfaces["report --json config"]
    assert '"TYPE_C": "tl.float16"' in surfaces["list --json of the shipped variants"]

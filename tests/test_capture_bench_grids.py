"""Issue 40: a capture records the grid each config launched with while the autotuner benchmarked it (the
autotune record's `grids`, parallel to its `configs`), so a config that was only benchmarked can be ranked
offline — under `capture --as` (the stand-in's launch evaluates the grid as the target's JIT would) and under
Triton's interpreter (where nothing evaluates it, the grid callable is evaluated with the config's values)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_helpers import assert_one_line_error, run_cli, run_cli_ok, run_process

from ttinspect.capture import read
from ttinspect.errors import EXIT_USAGE

EXAMPLE = Path(__file__).parent / "data" / "captures" / "example.ttcap"
N = 5000
BLOCKS = (128, 256, 1024)
KERNEL = f'''
import triton
import triton.language as tl

@triton.autotune(configs=[triton.Config({{"BLOCK": b}}, num_warps=4) for b in {BLOCKS}], key=["n"])
@triton.jit
def scale(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2, mask=m)
'''
PROGRAM = f'''
import torch
import triton
from kern import scale

x = torch.empty({N}, device="cuda" if torch.cuda.is_available() else "cpu")
scale[lambda meta: (triton.cdiv({N}, meta["BLOCK"]),)](x, {N})
'''
EXPECTED = [[-(-N // block), 1, 1] for block in BLOCKS]  # cdiv(n, BLOCK) per config, in the configs' order

# how the run was captured: as an H100 on this CPU (nothing runs), and in Triton's interpreter (the untimed
# stand-in launches nothing, so the grid is evaluated from the config)
WAYS = {"as-sm_90": (("--as", "sm_90"), {"TRITON_INTERPRET": "1"}), "interpreter": ((), {"TRITON_INTERPRET": "1"})}


@pytest.fixture(scope="module", params=sorted(WAYS))
def captured(request, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp(request.param)
    (folder / "kern.py").write_text(KERNEL)
    (folder / "prog.py").write_text(PROGRAM)
    options, env = WAYS[request.param]
    done = run_process("capture", *options, "-o", "run.ttcap", "--", sys.executable, "prog.py", cwd=folder, env=env)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr, done.stderr
    return folder / "run.ttcap"


def test_every_benchmarked_config_s_grid_is_recorded(captured):
    (tuning,) = read(captured).autotune
    assert [c["kwargs"]["BLOCK"] for c in tuning.configs] == list(BLOCKS)
    assert [list(g) for g in tuning.grids] == EXPECTED


def test_the_listing_shows_each_config_s_grid(captured):
    listing = json.loads(run_cli_ok("list", captured, "--json"))
    found = {row["config"]["BLOCK"]: tuning["grid"] for row in listing["compiles"] for tuning in row["autotune"]}
    assert found == dict(zip(BLOCKS, EXPECTED, strict=True))


def test_an_old_capture_without_grids_still_reads():
    tunings = read(EXAMPLE).autotune
    assert tunings and all(t.grids is None for t in tunings)
    listing = json.loads(run_cli_ok("list", EXAMPLE, "--json"))
    assert all(t["grid"] is None for row in listing["compiles"] for t in row["autotune"])


def _with_grids(tmp_path: Path, grids) -> Path:
    lines = []
    for line in EXAMPLE.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "autotune":
            record["grids"] = grids
        lines.append(json.dumps(record))
    out = tmp_path / "edited.ttcap"
    out.write_text("\n".join(lines) + "\n")
    return out


def test_grids_one_per_config_are_read(tmp_path):
    (tuning,) = read(_with_grids(tmp_path, [[16, 16, 1], None])).autotune
    assert tuning.grids == ((16, 16, 1), None)


@pytest.mark.parametrize("grids, said", [
    ([[16, 16], None], "a grid of 3 integers"),
    ([[16, 16, 1, 1], None], "a grid of 3 integers"),
    ([[16, -1, 1], None], "an integer from 0"),
    ([["16", 1, 1], None], "an integer from 0"),
    ([[16, 16, 1]], "'grids' has 1 entries for the 2 configs"),
    ({"BLOCK": 1}, "expected a list"),
])
def test_a_wrong_shaped_grids_is_refused_in_one_line(tmp_path, grids, said):
    path = _with_grids(tmp_path, grids)
    assert_one_line_error(run_cli("list", path), EXIT_USAGE, f"{path}:", said)


def test_predict_ranks_the_configs_the_autotuner_only_benchmarked(captured):
    if read(captured).header.as_target is None:
        pytest.skip("the interpreter's capture has no target to predict for")
    data = json.loads(run_cli_ok("predict", captured, "--source", "captured", "--json"))
    kernels = {k["config"]["BLOCK"]: k for k in data["kernels"]}
    assert set(kernels) == set(BLOCKS) and all(k["high_ms"] is not None for k in kernels.values())
    for block, grid in zip(BLOCKS, EXPECTED, strict=True):
        sites = kernels[block]["sites"]
        benchmarked = [s for s in sites if s["count"] == 0]
        if kernels[block]["launches"] == 0:  # only benchmarked: predicted at its recorded grid, adding no time
            (site,) = benchmarked
            assert "autotuner benchmark" in site["site"] and site["launches"][0]["time_ms"] > 0
            assert site["launches"][0]["details"]["programs"] == grid[0]
            assert kernels[block]["low_ms"] == 0.0


def test_the_autotune_check_takes_each_config_s_benchmark_grid():
    sys.path.insert(0, str(Path(__file__).parent.parent / "scripts"))
    from perf_autotune_check import groups_of_listing

    def compile_(n, launched):
        return {"kernel": "k", "ref": "x.ttcap:k", "number": n, "file": "/nonexistent/k.py", "target": "sm_90",
                "config": {"BLOCK": 32 * n, "num_warps": 4}, "grids": [[8, 1, 1]] if launched else [],
                "args": [{"M": 256}] if launched else [],
                "autotune": [{"key": {"M": 256}, "config": n, "configs": 3, "ms": float(n), "grid": [256 // n, 1, 1]}]}

    (group,) = groups_of_listing({"compiles": [compile_(1, True), compile_(2, False), compile_(3, False)]})
    assert [t.grid for t in group.timed] == [(256, 1, 1), (128, 1, 1), (85, 1, 1)]

"""A kernel library's own autotuner (issue 39, round 6: auto-round's GPTQ-style tuner; vLLM's are alike): a
`triton.KernelInterface` holding `.fn` and `.configs` (triton.Config) that times each config with
`triton.testing.do_bench`. Under `capture --as`, in every mode, do_bench runs its function once (its launches
recorded) and returns NaN in its own shape, so the tuner keeps its first config, said once in a note; read as a
file reference, the tuner's configs are listed as Triton's Autotuner's are, and a wrapper of another shape is
still passed through. The programs are in tests/data/own_autotuner/ (our own code, no library's)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli_ok, run_process

from ttinspect.capture import read

DATA = Path(__file__).parent / "data" / "own_autotuner"
TUNED = DATA / "tuned.py"
ARGS = ("--arch", "sm_90", "--arg", "x=*fp32", "--arg", "y=*fp32", "--arg", "n=4096")


@pytest.mark.parametrize("mode", [(), ("--values",), ("--run-kernels",)], ids=["as", "values", "run-kernels"])
def test_do_bench_under_as_runs_once_untimed_and_the_tuner_keeps_its_first_config(tmp_path, mode):
    (tmp_path / "prog.py").write_text(TUNED.read_text())
    done = run_process("capture", "--as", "sm_90", *mode, "-o", "run.ttcap", "--", sys.executable, "prog.py",
                       cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # NaN in do_bench's own shapes: plain, one quantile, two quantiles, return_mode="all" (one run)
    assert done.stdout.splitlines() == ["chose BLOCK 256", "shapes nan nan [nan, nan] [nan]"]
    notes = [line for line in done.stderr.splitlines() if "triton.testing.do_bench" in line]
    assert len(notes) == 1 and "prog.py:" in notes[0] and "timed nothing under --as sm_90" in notes[0]
    assert "keeps its first config" in notes[0]
    captured = read(tmp_path / "run.ttcap")
    counts = {c.constexprs["BLOCK"]: sum(e.count for e in captured.launches if e.compile == c.id)
              for c in captured.compiles if c.name == "copy_kernel"}
    assert counts == {256: 2, 1024: 1}  # each config's timed launch once, then the first config's own launch


def _listed(path: Path) -> dict[str, dict]:
    return {k["name"]: k for k in json.loads(run_cli_ok("list", path, "--json"))["kernels"]}


def test_an_own_tuner_seen_through_a_file_lists_its_configs():
    listed = _listed(TUNED)["copy_kernel"]
    assert (listed["kind"], listed["autotune_configs"]) == ("autotune", 2)


@pytest.mark.parametrize("config, block, warps", [("1", 256, 4), ("2", 1024, 8)])
def test_an_own_tuners_config_is_compiled_by_its_number(config, block, warps):
    built = json.loads(run_cli_ok("report", f"{TUNED}:copy_kernel", *ARGS, "--config", config, "--json"))
    assert (built["config"]["BLOCK"], built["config"]["num_warps"]) == (block, warps)


@pytest.mark.parametrize("name", ["dict_configs", "no_configs"])
def test_a_wrapper_without_triton_configs_still_passes_through(name):
    """The rule is the shape: `.configs` must be triton.Config objects; a wrapper holding other configs (or
    none) only passes the launch on, and its kernel is a plain JIT function."""
    listed = _listed(DATA / "wrappers.py")[name]
    assert (listed["kind"], listed["autotune_configs"]) == ("jit", 0)

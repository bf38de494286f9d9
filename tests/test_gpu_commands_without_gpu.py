"""bench, profile, ladder and autotune need a CUDA GPU: without one they say so in one line, exit 5."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ttinspect.cli.main import cli


def _has_cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


pytestmark = pytest.mark.skipif(_has_cuda(), reason="this machine has a GPU")


@pytest.mark.parametrize("args", [["bench", "opt"], ["bench", "naive", "opt", "--sizes", "1024"],
                                  ["profile", "opt"], ["ladder"], ["autotune", "opt"]])
def test_needs_a_gpu(args):
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 5, result.output
    assert result.output.strip() == "ttinspect: error: needs a CUDA GPU; dump/report/diff work without one" \
        or result.output.strip() == "ttinspect: error: needs a CUDA GPU and torch; dump/report/diff work without one"


def test_config_best_without_an_autotune_result(tmp_path, monkeypatch):
    monkeypatch.setenv("TTINSPECT_CACHE_DIR", str(tmp_path))
    result = CliRunner().invoke(cli, ["dump", "opt", "--config", "best"], catch_exceptions=False)
    assert result.exit_code == 2 and "run `ttinspect autotune opt` on a GPU first" in result.output


def test_config_number_selects_an_autotune_config():
    result = CliRunner().invoke(cli, ["report", "opt", "--config", "1", "--arch", "sm_90", "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert '"BLOCK_SIZE_N": 256' in result.output
    bad = CliRunner().invoke(cli, ["report", "opt", "--config", "99"], catch_exceptions=False)
    assert bad.exit_code == 2 and "autotune configs" in bad.output


def test_saved_winner_is_inspectable_offline(tmp_path, monkeypatch):
    from ttinspect.caches import winners as autotuned
    from ttinspect.kernel.catalog import get_variant

    monkeypatch.setenv("TTINSPECT_CACHE_DIR", str(tmp_path))
    winner = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
              "num_warps": 4, "num_stages": 4}
    autotuned.save(get_variant("opt"), {"best": {"config": winner}})
    result = CliRunner().invoke(cli, ["dump", "opt", "--config", "best", "--arch", "sm_90"], catch_exceptions=False)
    assert result.exit_code == 0 and "BLOCK_SIZE_N=128" in result.output.splitlines()[0]

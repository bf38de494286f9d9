"""Evidence under a changed fact: each side's line that shows it (ttinspect/compare/evidence.py)."""

from __future__ import annotations

from click.testing import CliRunner

from ttinspect.cli.main import cli
from ttinspect.compare.evidence import WITNESSES, witness


def test_diff_shows_each_sides_line():
    out = CliRunner().invoke(cli, ["diff", "opt", "opt:num_stages=3", "--arch", "sm_90", "--width", "120"],
                             catch_exceptions=False).output
    block = out[out.index("• pipeline depth"):]
    a, b = [line.strip() for line in block.splitlines() if line.startswith("    opt")][:2]
    assert a.startswith("opt@sm_90: ptx:") and a.endswith("cp.async.wait_group 4;")
    assert b.startswith("opt:num_stages=3@sm_90: ptx:") and b.endswith("cp.async.wait_group 2;")


def test_witness_reads_the_line_it_names():
    from ttinspect.refs.resolver import RefOptions, resolve_one

    built = resolve_one("opt", RefOptions(arch="sm_90"))
    (line,) = witness(built, "loop_wgmma")
    stage_line, text = line.split("  ", 1)
    number = int(stage_line.split(":")[1])
    whole = " ".join(built.artifacts.text("ptx").split("\n")[number - 1].split())
    assert whole.startswith(text.strip())  # the line itself, cut at 100 characters
    assert "wgmma.mma_async" in text
    assert witness(built, "no_such_fact") == [] and witness(None, "spills") == []
    assert witness(built, "spills") == []  # opt does not spill: no STL/LDL line
    assert set(WITNESSES) >= {"pipeline_depth", "tensor_core_path", "spills", "tma_copies"}

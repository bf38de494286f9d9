"""The snapshot is a pure function of the code, the targets and the Triton release (issue 41): two cold runs (each
with an empty cache of its own, the entries spread over a process pool) and a warm run write byte-identical files
for a library whose configs are chosen by the device its code asks; and the same inputs give the same verdict cold
or warm — an environment where a kernel file's import fails fails warm too, whatever a cache filled elsewhere holds.
"""

from __future__ import annotations

import json
import os

import pytest
from cli_helpers import run_process

# A library that asks the GPU at import, through a helper module two kernel files share (which worker imports it
# first decided which entries named the virtual device).
TUNING = """import torch

MAJOR = torch.cuda.get_device_capability()[0]
BLOCK = 256 if MAJOR >= 8 else 128
"""
KERNEL = """import triton
import triton.language as tl

from tuning import BLOCK


@triton.jit
def {name}(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * {factor}, mask=mask)


TTINSPECT_EXAMPLES = {{
    "a": {{"kernel": {name}, "signature": "*fp32:16, *fp32:16, i32:16", "config": {{"BLOCK": BLOCK}}}},
    "b": {{"kernel": {name}, "signature": "*fp32:16, *fp32:16, i32", "config": {{"BLOCK": BLOCK}}}},
}}
"""


@pytest.fixture
def device_library(tmp_path):
    pytest.importorskip("torch")
    root = tmp_path / "lib"
    ops = root / "ops"
    ops.mkdir(parents=True)
    (ops / "tuning.py").write_text(TUNING)
    for index, name in enumerate(("scale", "double", "triple")):
        (ops / f"{name}.py").write_text(KERNEL.format(name=f"{name}_kernel", factor=index + 2))
    (root / "pyproject.toml").write_text('[tool.ttinspect]\nkernels = ["ops/*.py"]\ntargets = ["sm_80", "sm_90"]\n')
    return root


def _snapshot(root, cache, *argv, env=None):
    return run_process("snapshot", *argv, cwd=root, env={"TTINSPECT_CACHE_DIR": str(cache), "NO_COLOR": "1",
                                                         "COLUMNS": "300", **(env or {})})


def test_two_cold_runs_and_a_warm_one_write_the_same_bytes(device_library, tmp_path):
    snapshot = device_library / "ttinspect.snapshot.json"
    made = []
    for cache in ("cold-1", "cold-2", "cold-2"):  # the third run is warm: cold-2's cache
        done = _snapshot(device_library, tmp_path / cache, "-j", "2")
        assert done.returncode == 0, done.stderr
        made.append(snapshot.read_bytes())
        snapshot.unlink()
    assert made[0] == made[1] == made[2]
    entries = json.loads(made[0])["entries"]
    assert len(entries) == 12 and not any("device" in entry for entry in entries.values())
    assert not any("evidence" in entry for entry in entries.values())  # kept with the run, never in the file
    snapshot.write_bytes(made[0])
    for cache in ("cold-3", "cold-3"):  # the report too: the same words cold and warm
        checked = _snapshot(device_library, tmp_path / cache, "--check", "--format", "json")
        assert checked.returncode == 0, checked.stderr
        report = json.loads(checked.stdout)
        assert [e["status"] for e in report["entries"]] == ["ok"] * 12
        assert any("virtual device NVIDIA" in note for note in report["notes"])
        assert report["ttinspect_version"]


def test_an_import_that_fails_here_fails_warm_too(device_library, tmp_path):
    """A cache filled where a dependency was installed must not pass a run where it is not."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "ttinspect_gate_dependency.py").write_text("FACTOR = 2\n")
    ops = device_library / "ops"
    (ops / "scale.py").write_text("import ttinspect_gate_dependency\n" + (ops / "scale.py").read_text())
    cache = tmp_path / "shared-cache"
    with_it = {"PYTHONPATH": os.pathsep.join(filter(None, (str(site), os.environ.get("PYTHONPATH"))))}
    assert _snapshot(device_library, cache, env=with_it).returncode == 0
    assert _snapshot(device_library, cache, "--check", env=with_it).returncode == 0  # warm, the dependency there
    verdicts = []
    for run in ("warm", "cold"):
        done = _snapshot(device_library, cache if run == "warm" else tmp_path / "empty-cache", "--check")
        verdicts.append((done.returncode, [line for line in done.stdout.splitlines() if "scale.py" in line][:1]))
        assert done.returncode == 1 and "No module named 'ttinspect_gate_dependency'" in done.stdout, done.stdout
        assert str(device_library) not in done.stdout  # the library's files said relative to it
    assert verdicts[0] == verdicts[1]

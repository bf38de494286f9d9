"""The public API: every name in ttinspect.__all__ resolves to the documented object, whatever was
imported before (a submodule must never shadow an exported function)."""

from __future__ import annotations

import subprocess
import sys

import ttinspect


def test_exports_resolve():
    import ttinspect.compare.facts_diff  # noqa: F401  (a submodule import must not shadow `diff`)
    import ttinspect.report.collect  # noqa: F401

    for name in ttinspect.__all__:
        assert getattr(ttinspect, name) is not None
    assert callable(ttinspect.diff) and callable(ttinspect.inspect) and callable(ttinspect.build)


def test_import_is_cheap():
    code = ("import sys, ttinspect; "
            "print(','.join(m for m in ('triton', 'torch', 'rich', 'pygments') if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == ""


def test_inspect_and_diff_through_the_package():
    report = ttinspect.inspect("opt", arch="sm_90", num_stages=3)
    assert report.pipeline_depth == 3 and report.tensor_core_path == "wgmma"
    changes = {c.key for c in ttinspect.diff("opt", "opt:num_stages=3").changes}
    assert {"pipeline_depth", "loop_wait_group", "shared_memory"} <= changes

"""The shipped kernels under every Triton release (docs/data/versions/matrix.json, written by
scripts/versions_matrix.py through `ttinspect versions`): a new release or a changed kernel shows up here
as a reviewed difference.

- Every *structural* change between two consecutive releases (does it compile, pipeline depth, tensor-core
  path, shared memory, async copies, TMA) is listed in KNOWN with its reason — an unreviewed one fails.
  Register and spill counts move with each release's LLVM and ptxas; the table shows them, unpinned.
- The installed release's live facts equal its column (when it is one of the matrix's releases).
"""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest

MATRIX = json.loads((Path(__file__).resolve().parents[1] / "docs" / "data" / "versions" / "matrix.json").read_text())
STRUCTURAL = ("pipeline_depth", "tensor_core_path", "shared_memory", "loop_cp_async", "tma_copies")

# (kernel@target, from, to, what) -> why. Each found with `ttinspect diff REF@triton=A REF@triton=B --passes`.
KNOWN = {
    **{(f"opt_tma@{arch}", "3.3.1", "3.4.0", "compiles"):
       "host-side TensorDescriptor arrives in Triton 3.4: 3.3 cannot compile a kernel that takes one"
       for arch in ("sm_80", "sm_90", "sm_100")},
    ("opt_tma@sm_80", "3.4.0", "3.5.1", "shared_memory"):
        "3.5 replaces allocate-shared-memory with allocate-shared-memory-nv (the pass histories show the swap); "
        "the descriptor fallback on Ampere (no TMA) is given 65536 B instead of 49152",
    **{(f"opt_tma@{arch}", "3.7.1", "3.8.0", "tma_copies"):
       "3.8 waits for some TMA stores to finish (cp.async.bulk.wait_group) where 3.7 waited only until their "
       "source was read (.read)"
       for arch in ("sm_90", "sm_100")},
}


def _changes() -> list[tuple[str, str, str, str]]:
    versions = MATRIX["versions"]
    found = []
    for name, cells in MATRIX["cells"].items():
        for a, b in pairwise(versions):
            fa, fb = cells.get(a, {}), cells.get(b, {})
            if ("error" in fa) != ("error" in fb):
                found.append((name, a, b, "compiles"))
            elif "error" not in fa:
                found += [(name, a, b, key) for key in STRUCTURAL if fa.get(key) != fb.get(key)]
    return found


def test_every_structural_change_is_reviewed():
    unreviewed = [c for c in _changes() if c not in KNOWN]
    assert not unreviewed, ("structural changes between releases without a reason in KNOWN (review them with "
                            f"`ttinspect diff REF@triton=A REF@triton=B --arch ARCH --passes`): {unreviewed}")


def test_every_known_change_is_still_there():
    stale = [k for k in KNOWN if k not in _changes()]
    assert not stale, f"KNOWN lists changes the matrix no longer has: {stale}"


def test_matrix_covers_every_release_and_the_card_kernels():
    assert MATRIX["versions"] == ["3.3.1", "3.4.0", "3.5.1", "3.6.0", "3.7.1", "3.8.0", "3.9.0"]
    assert {"naive@sm_80", "opt@sm_90", "opt_tma@sm_100"} <= set(MATRIX["cells"])


@pytest.mark.parametrize("cell", ["naive@sm_80", "opt@sm_90", "opt@sm_100", "softmax@sm_90"])
def test_installed_release_equals_its_column(cell):
    from ttinspect.targets.releases import installed_version
    from ttinspect.versions.rows import version_rows
    from ttinspect.refs.resolver import RefOptions

    here = installed_version()
    if here not in MATRIX["versions"]:
        pytest.skip(f"Triton {here} is not in the matrix: run scripts/versions_matrix.py and review the diff")
    variant, arch = cell.split("@")
    (row,) = version_rows(variant, [here], RefOptions(arch=arch))
    assert row.error is None, row.error
    assert row.as_dict()["facts"] == MATRIX["cells"][cell][here]

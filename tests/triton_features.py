"""What the installed Triton can do, for tests that depend on it (docs/versions.md has the table)."""

from __future__ import annotations

import importlib.metadata

import pytest

from ttinspect.targets.releases import release

TRITON = release(importlib.metadata.version("triton"))
HOST_TMA = TRITON >= (3, 4)  # TensorDescriptor arguments (opt_tma)

needs_host_tma = pytest.mark.skipif(not HOST_TMA, reason="host-side tensor descriptors need Triton >= 3.4; "
                                                         "tests/test_versions.py checks the message instead")

BLOCK_POINTERS = TRITON < (3, 9)  # tl.make_block_ptr: removed in 3.9 (3.8.0 compiles it, measured)

# AMD targets compile on a CPU-only machine from Triton 3.6 on (3.3 links with ROCm's ld.lld, not in its
# wheel); 3.4, 3.5, 3.7, 3.8 were not measured (docs/amd.md)
AMD = TRITON in ((3, 6), (3, 9)) or TRITON > (3, 9)
needs_amd = pytest.mark.skipif(not AMD, reason="AMD targets measured to compile with Triton 3.6 and 3.9 only")

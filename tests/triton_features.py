"""What the installed Triton can do, for tests that depend on it (docs/versions.md has the table)."""

from __future__ import annotations

import importlib.metadata

import pytest

from ttinspect.versions import release

TRITON = release(importlib.metadata.version("triton"))
HOST_TMA = TRITON >= (3, 4)  # TensorDescriptor arguments (opt_tma)

needs_host_tma = pytest.mark.skipif(not HOST_TMA, reason="host-side tensor descriptors need Triton >= 3.4; "
                                                         "tests/test_versions.py checks the message instead")

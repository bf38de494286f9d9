"""Shared test set-up: an isolated artifact cache, and GPU tests skipped (not failed) without a GPU."""

from __future__ import annotations

import os
import tempfile

import pytest

# Tests never touch the user's cache. A session shares one cache (compiles are the slow part);
# TTINSPECT_CACHE_DIR set by the caller (CI) wins.
os.environ.setdefault("TTINSPECT_CACHE_DIR", tempfile.mkdtemp(prefix="ttinspect-test-cache-"))
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")


def _has_cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def pytest_collection_modifyitems(config, items):
    if _has_cuda():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


from golden_option import pytest_addoption  # noqa: E402,F401  (--update-golden)

"""A library's kernels in one committed snapshot, and the CI gate against it (`ttinspect snapshot`)."""

from .config import SnapshotConfig, load
from .gate import classify, gate
from .run import Computed, check, compute

__all__ = ["Computed", "SnapshotConfig", "check", "classify", "compute", "gate", "load"]

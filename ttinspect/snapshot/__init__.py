"""A library's kernels in one committed snapshot, and the CI gate against it (`ttinspect snapshot`)."""

from ttinspect.snapshot.config import SnapshotConfig, load
from ttinspect.snapshot.gate import classify, gate
from ttinspect.snapshot.run import Computed, check, compute

__all__ = ["Computed", "SnapshotConfig", "check", "classify", "compute", "gate", "load"]

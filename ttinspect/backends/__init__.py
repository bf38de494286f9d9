"""Vendor backends: each supplies its assembly's facts, its occupancy calculator and the hooks the check
rules call (`backend_for(target)` picks one)."""

from ttinspect.backends.base import Backend
from ttinspect.backends.lookup import backend_for

__all__ = ["Backend", "backend_for"]

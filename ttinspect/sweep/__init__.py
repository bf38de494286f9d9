"""Sweeps over a kernel's config space (issue 11)."""

"""Every cache ttinspect reads: its own content-addressed store (and `cache-info`), and Triton's, read-only."""

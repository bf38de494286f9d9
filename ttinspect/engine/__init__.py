"""A reference's compile made into artifacts, through the content-addressed store: builds, artifacts, tools."""

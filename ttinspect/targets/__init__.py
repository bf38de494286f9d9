"""The targets a kernel compiles for, as pure data: NVIDIA and AMD limits, and which Triton release compiles which."""

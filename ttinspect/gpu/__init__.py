"""The GPU side: runs kernels (imports torch). Sits beside the inspection path, never inside it."""

"""A regular package whose kernels/ folder has no __init__.py (a namespace portion: fastvideo-kernel)."""

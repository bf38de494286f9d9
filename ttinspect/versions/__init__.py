"""One kernel under several Triton releases: the worker a toolchain's environment runs (worker.py) and the
row of headline facts per release that `ttinspect versions` shows (rows.py)."""

"""A module of the library that imports a compiled extension built as a submodule of its own package
(setup.py's CUDAExtension("gpu_ops.cuda"): named like no extension, absent from a laptop install's RECORD)."""
from .cuda import convert_indexes  # noqa: F401 - used only on the GPU path below
from .kernels import scale


def scaled_or_converted(x, convert=False):
    return convert_indexes(x) if convert else scale(x)

"""A library as a laptop install has it: its __init__ imports the compiled CUDA extension that only a build with
CUDA makes (gpu_ops_cuda), and tries an optional accelerated one, falling back without it."""
try:
    import gpu_ops_fast_cuda  # optional: the library takes its fallback when it is missing
except ImportError:
    gpu_ops_fast_cuda = None

import gpu_ops_cuda  # noqa: F401 - the compiled extension, absent here

from gpu_ops.kernels import scale  # noqa: E402, F401 - the library's API
from gpu_ops.sparse import scaled_or_converted  # noqa: E402, F401 - its module importing gpu_ops.cuda

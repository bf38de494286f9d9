"""A library (as installed: its dist-info lists it) that builds its CUDA backend at run time and falls back to
its Triton kernel where the build fails — each way of catching the failure a library writes is one function
here, picked by name (`scale(x, caught="RuntimeError")`). At import it asks torch where the toolkit is, as
flashrnn's cuda_init does: under capture --as that answers the target's (no traceback here)."""
import torch
from torch.utils.cpp_extension import include_paths, load_inline

from jit_ops.kernels import scale_triton

if torch.cuda.is_available():
    TOOLKIT_INCLUDE = include_paths(device_type="cuda")[-1]

SOURCE = "#include <cuda_runtime.h>\n__global__ void scale() {}\n"


def _build():
    return load_inline(name="jit_ops_cuda", cpp_sources="void scale();", cuda_sources=SOURCE, functions=["scale"])


def _catching_runtime_error():
    try:
        return _build()
    except RuntimeError:
        return None


def _catching_os_error():
    try:
        return _build()
    except OSError:
        return None


def _catching_everything():
    try:
        return _build()
    except:  # noqa: E722 - as libraries write it
        return None


def _not_catching():
    return _build()


BACKENDS = {"RuntimeError": _catching_runtime_error, "OSError": _catching_os_error,
            "bare": _catching_everything, "nothing": _not_catching}


def scale(x, caught):
    backend = BACKENDS[caught]()
    if backend is None:
        scale_triton(x)
        return "triton"
    backend.scale(x)
    return "cuda"

"""@jit helpers in a module of their own, for tests/data/values_written/adversarial.py (called through the module's
name and imported by name)."""
import triton
import triton.language as tl


@triton.jit
def store_tile(ptr, offs, value):
    tl.store(ptr + offs, value)


@triton.jit
def load_tile(ptr, offs):
    return tl.load(ptr + offs)

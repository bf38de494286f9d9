"""Kernels that try to hide a write from kernel/written_params.py (tests/test_values_written_params.py): each one
stores through `out_ptr` (or the parameter the test names) in a way the analysis has to follow or give up on."""
import importlib.util
import sys
from pathlib import Path

import triton
import triton.language as tl
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

# the sibling module, loaded by path as the test loads this one (it is not on sys.path)
_spec = importlib.util.spec_from_file_location("values_written_helper_lib", Path(__file__).with_name("helper_lib.py"))
helper_lib = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = helper_lib
_spec.loader.exec_module(helper_lib)
store_tile_imported = helper_lib.store_tile


@triton.jit
def _two_offsets(a, b, offs):
    return a + offs, b + offs


@triton.jit
def tuple_from_helper(x_ptr, out_ptr, BLOCK: tl.constexpr):
    src, dst = _two_offsets(x_ptr, out_ptr, tl.arange(0, BLOCK))
    tl.store(dst, tl.load(src))


@triton.jit
def list_indexed(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pointers = [x_ptr, out_ptr]
    offs = tl.arange(0, BLOCK)
    tl.store(pointers[1] + offs, tl.load(pointers[0] + offs))


@triton.jit
def where_pointer(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(tl.where(offs < 4, out_ptr, out_ptr + 1) + offs, tl.load(x_ptr + offs))


@triton.jit
def advanced_in_loop(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    dst = tl.make_block_ptr(out_ptr, (M, N), (N, 1), (0, 0), (BLOCK, BLOCK), (1, 0))
    for _ in range(0, M, BLOCK):
        tl.store(dst, tl.zeros((BLOCK, BLOCK), tl.float32))
        dst = dst.advance((BLOCK, 0))
    tl.load(x_ptr)


@triton.jit
def descriptor_atomic(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    out = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    out.atomic_add([0, 0], tl.load(x_ptr + tl.arange(0, BLOCK)[:, None] + tl.arange(0, BLOCK)[None, :]))


@triton.jit
def atomics_with_sem(x_ptr, out_ptr, lock_ptr):
    while tl.atomic_cas(lock_ptr, 0, 1, sem="acquire", scope="gpu") == 1:
        pass
    tl.atomic_add(out_ptr, tl.load(x_ptr), sem="relaxed")
    tl.atomic_xchg(lock_ptr, 0, sem="release")


@triton.jit
def store_by_keyword(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(value=tl.load(x_ptr + offs), pointer=out_ptr + offs, mask=offs < 4)


@triton.jit
def store_in_ranges(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in tl.static_range(2):
        tl.store(out_ptr + i * BLOCK + offs, tl.load(x_ptr + offs))
    for i in tl.range(0, N, BLOCK, num_stages=2):
        tl.store(out_ptr + i + offs, tl.load(x_ptr + offs))


@triton.jit
def _store_with_defaults(value, dst=None, offs=0, scale: tl.constexpr = 1.0):
    tl.store(dst + offs, value * scale)


@triton.jit
def _forward(src, dst, offs):
    _store_with_defaults(tl.load(src + offs), offs=offs, dst=dst)


@triton.jit
def nested_keywords(x_ptr, out_ptr, BLOCK: tl.constexpr):
    _forward(dst=out_ptr, src=x_ptr, offs=tl.arange(0, BLOCK))


@triton.jit
def module_attribute_helper(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    helper_lib.store_tile(out_ptr, offs, helper_lib.load_tile(x_ptr, offs))


@triton.jit
def imported_helper(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    store_tile_imported(out_ptr, offs, tl.load(x_ptr + offs))


@triton.jit
def plus_zero_to_helper(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    store_tile_imported(out_ptr + 0, offs, tl.load(x_ptr + offs))


@triton.jit
def _ping(p, n):
    _pong(p, n)


@triton.jit
def _pong(p, n):
    tl.store(p, n)
    _ping(p, n)


@triton.jit
def recursive(x_ptr, out_ptr):
    _ping(out_ptr, tl.load(x_ptr))


@triton.jit
def libdevice_math(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.extra.cuda.libdevice.exp(tl.load(x_ptr + offs)))


@triton.jit
def cast_to_pointer(x_ptr, out_ptr):
    tl.store(tl.cast(out_ptr, tl.pointer_type(tl.int8)), tl.load(x_ptr).to(tl.int8))


@triton.jit
def method_cast_to_pointer(x_ptr, out_ptr):
    tl.store(out_ptr.to(tl.pointer_type(tl.int8)), tl.load(x_ptr).to(tl.int8))


@triton.jit
def address_round_trip(x_ptr, out_ptr):
    address = out_ptr.to(tl.int64) + 4
    tl.store(address.to(tl.pointer_type(tl.float32), bitcast=False), tl.load(x_ptr))


@triton.jit
def shadowed(x_ptr, out_ptr):
    x_ptr = out_ptr
    tl.store(x_ptr, 1.0)


@triton.jit
def loop_over_pointers(a_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for p in (a_ptr, out_ptr):
        tl.store(p + offs, 0.0)


@triton.jit
def walrus(x_ptr, out_ptr):
    tl.store((dst := out_ptr + 1), tl.load(x_ptr))
    tl.store(dst, 2.0)


@triton.jit
def augmented(x_ptr, out_ptr, BLOCK: tl.constexpr):
    p = x_ptr
    p += out_ptr - x_ptr
    tl.store(p + tl.arange(0, BLOCK), 1.0)


@triton.jit
def both_branches(x_ptr, out_ptr, other_ptr, FLAG: tl.constexpr):
    if FLAG:
        tl.store(out_ptr, tl.load(x_ptr))
    else:
        tl.store(other_ptr, tl.load(x_ptr))


@triton.jit
def while_loop(x_ptr, out_ptr, n):
    p = x_ptr
    i = 0
    while i < n:
        tl.store(p, 1.0)
        p = out_ptr
        i += 1


@triton.jit
def early_return(x_ptr, out_ptr, n):
    if n > 4:
        return
    tl.store(out_ptr, tl.load(x_ptr))


@triton.jit
def constexpr_helper(x_ptr, out_ptr, STORE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    STORE(out_ptr, offs, tl.load(x_ptr + offs))


MY_STORE = {(tl.int64, tl.float32): ("my_store", tl.float32)}  # a bitcode function of the user's own library


@triton.jit
def extern_call(x_ptr, out_ptr):
    # the bitcode function may store through the address it is given; nothing the kernel stores says so
    tl.core.extern_elementwise("mylib", "mylib.bc", [out_ptr.to(tl.int64), tl.load(x_ptr)], MY_STORE, is_pure=False)


@triton.jit
def pointer_method_store(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    (out_ptr + offs).store(tl.load(x_ptr + offs))


def make_closure_kernel(tile):
    @triton.jit
    def closure_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        _tile(out_ptr, offs, tl.load(x_ptr + offs))

    _tile = tile  # noqa: F841 - a closure's name: Triton looks it up before the module's `_tile`
    return closure_kernel


@triton.jit
def _tile(ptr, offs, value):
    return tl.load(ptr + offs) + value


closure_kernel = make_closure_kernel(helper_lib.store_tile)


@triton.autotune(configs=[triton.Config({"BLOCK": 16})], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % 16 == 0})
@triton.jit
def tuned(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@gluon.jit
def gluon_kernel(x_ptr, out_ptr, BLOCK: gl.constexpr, LAYOUT: gl.constexpr):
    offs = gl.arange(0, BLOCK, layout=LAYOUT)
    gl.store(out_ptr + offs, gl.load(x_ptr + offs))


@gluon.jit
def gluon_atomic(x_ptr, out_ptr):
    gl.atomic_add(out_ptr + gl.program_id(0), 1)


class Ops:
    """A namespace of @jit functions, given to a kernel as a constexpr: `OPS.max(...)` calls helper_lib.store_tile."""
    max = helper_lib.store_tile


@triton.jit
def namespace_constexpr(x_ptr, out_ptr, OPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    ops = OPS
    ops.max(out_ptr, offs, tl.load(x_ptr + offs))


@triton.jit
def namespace_default(x_ptr, out_ptr, OPS: tl.constexpr = Ops, BLOCK: tl.constexpr = 16):
    offs = tl.arange(0, BLOCK)
    OPS.max(out_ptr, offs, tl.load(x_ptr + offs))

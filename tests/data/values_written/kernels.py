"""Small kernels for tests/test_values_written_params.py: each shows one way a kernel writes (or only reads)
through a parameter."""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def store_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@triton.jit
def gather(x_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    idx = tl.load(idx_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, tl.load(x_ptr + idx), mask=offs < n)


@triton.jit
def scatter(x_ptr, idx_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + tl.load(idx_ptr + offs).to(tl.int64), libdevice.exp(tl.load(x_ptr + offs)))


@triton.jit
def histogram(x_ptr, counts_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(counts_ptr + tl.load(x_ptr + offs), 1)


@triton.jit
def block_pointer(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    for row in range(0, M, BLOCK):
        src = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (row, 0), (BLOCK, BLOCK), (1, 0))
        dst = tl.make_block_ptr(base=out_ptr, shape=(M, N), strides=(N, 1), offsets=(row, 0),
                                block_shape=(BLOCK, BLOCK), order=(1, 0))
        tl.store(dst, tl.load(src, boundary_check=(0, 1)), boundary_check=(0, 1))


@triton.jit
def advanced_block_pointer(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    # `tl.advance`: in the releases with block pointers a builtin, in 3.9 a name the language no longer has —
    # read by its spelling either way (fastvideo's LongCat attention walks K/V so)
    src = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BLOCK,), (0,))
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.load(tl.advance(src, (BLOCK,))))


@triton.jit
def device_descriptor(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    x = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    out = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    out.store([0, 0], x.load([0, 0]))


@triton.jit
def host_descriptor(x_desc, out_desc, BLOCK: tl.constexpr):
    out_desc.store([0, 0], x_desc.load([0, 0]) * 2)


@triton.jit
def _store_tile(ptr, offs, value):
    tl.store(ptr + offs, value)


@triton.jit
def _load_tile(ptr, offs):
    return tl.load(ptr + offs)


@triton.jit
def _offset(ptr, by):
    return ptr + by


@triton.jit
def through_helpers(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    _store_tile(out_ptr, offs, _load_tile(x_ptr, offs))


@triton.jit
def returned_pointer(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(_offset(out_ptr, offs), tl.load(_offset(x_ptr, offs)))


@triton.jit
def alias(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    target = out_ptr
    source = x_ptr
    if BLOCK > 16:
        target, source = source, target
    tl.store(target + offs, tl.load(source + offs))


@triton.jit
def alias_chain(x_ptr, out_ptr, BLOCK: tl.constexpr):
    p = x_ptr
    for _ in tl.static_range(2):
        q = p
        p = out_ptr
    tl.store(q + tl.arange(0, BLOCK), 1.0)


@triton.jit
def pointer_tuple(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    pointers = (a_ptr, out_ptr)
    offs = tl.arange(0, BLOCK)
    tl.store(pointers[1] + offs, tl.load(b_ptr + offs))


@triton.jit
def read_and_write(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)


@triton.jit
def casts_an_integer(table_ptr, x_ptr, BLOCK: tl.constexpr):
    address = tl.load(table_ptr)
    tl.store(address.to(tl.pointer_type(tl.float32)) + tl.arange(0, BLOCK), tl.load(x_ptr))


@triton.jit
def inline_asm(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [tl.load(x_ptr + offs)], dtype=tl.float32,
                                  is_pure=True, pack=1)
    tl.store(out_ptr + offs, y)


@triton.jit
def calls_a_parameter(x_ptr, out_ptr, ACTIVATION: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, ACTIVATION(tl.load(x_ptr + offs)))


@triton.jit
def casts_to_a_constexpr_type(x_ptr, out_ptr, OUT_DTYPE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs).to(OUT_DTYPE))
    tl.store(out_ptr + offs, tl.load(x_ptr + offs).to(out_ptr.dtype.element_ty))


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def reduces(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr, tl.reduce(x, 0, _add) + tl.sum(x, axis=0) + tl.max(x, 0))


@triton.jit
def leaks_an_address(x_ptr, table_ptr):
    tl.store(table_ptr, x_ptr.to(tl.int64))

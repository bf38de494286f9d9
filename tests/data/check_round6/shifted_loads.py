# A load whose index adds a constant (SHIFT): x[i - 1] beside x[i], as an exclusive prefix reads it. With
# 1024 elements over 4 warps each thread holds 8 i32, so the widest access is 4 elements (16 bytes): a SHIFT
# that is not a multiple of 4 is misaligned by construction, whatever E's hint; a multiple of 4 is aligned and
# only E's missing divisibility (the mask's bound) keeps it narrow.
import triton
import triton.language as tl


@triton.jit
def shifted_copy(x_ptr, out_ptr, E, BLOCK: tl.constexpr, SHIFT: tl.constexpr):
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = idx < E
    shifted = tl.load(x_ptr + idx + SHIFT, mask=mask, other=0)
    tl.store(out_ptr + idx, shifted, mask=mask)

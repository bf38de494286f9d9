"""Addresses of tensors on the virtual device. A program may ask `x.data_ptr()` without reading memory — to put
pointers in a tensor a kernel reads (a table of KV-cache blocks, the operands of a grouped GEMM), to tell whether
two tensors alias. Each storage gets an address of its own, as from CUDA's caching allocator (512-byte aligned,
one block after another), and a view's address is its storage's plus its offset: so the alignment a launch would
see, and aliasing, are the GPU's. The addresses are made up; nothing is ever read or written there."""

from __future__ import annotations

from typing import Any

BASE = 0x7F00_0000_0000  # where the made-up blocks begin: a GPU-like virtual address, never 0 (a null pointer)
ALIGNMENT = 512  # bytes: as capture/as_target.py's ALLOCATION_ALIGNMENT, what the specializer assumes

_BLOCKS: dict[int, int] = {}  # a storage (its StorageImpl's identity) -> its block's address
_NEXT = [BASE]


def data_ptr(meta: Any) -> int:
    """The address of the meta tensor `meta` (a virtual tensor's inside): its storage's block + its offset."""
    storage = meta.untyped_storage()
    key = int(storage._cdata)
    block = _BLOCKS.get(key)
    if block is None:
        block = _BLOCKS[key] = _NEXT[0]
        size = max(int(storage.nbytes()), 1)
        _NEXT[0] += -(-size // ALIGNMENT) * ALIGNMENT
    return block + int(meta.storage_offset()) * int(meta.element_size())

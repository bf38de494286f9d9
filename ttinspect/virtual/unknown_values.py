"""`capture --as ARCH --values`: torch computes on the CPU with values, Triton kernels are recorded and not run —
so what a kernel would have written is unknown. This module keeps which memory that is, and refuses a read of it.

A launch marks the storage of each tensor it gave for a parameter the kernel may write through (which is read
from the kernel's source, kernel/written_params.py: every tensor it was given where the source cannot say). A
storage, not a tensor: a view made before the launch shares it, and so does a tensor given for two parameters.
Whatever torch computes from unknown values is unknown too (the caller marks its outputs); reading unknown
values — `.item()`, `bool()`, `.tolist()`, `.cpu()`, an op whose shape depends on values (`nonzero`, a boolean
mask) — is refused in one line naming the line that asked and the launch that made the values unknown. A
storage's mark goes with it (a weak reference: a freed allocation reused by the next tensor is not taken for the
old one).

Host code that reads values only torch computed (a `g_idx` bounds check, the labels' `nonzero()`, a mask made
on the host, a cumulative sum of lengths) runs as on the GPU, at the program's real sizes, on the CPU."""

from __future__ import annotations

import weakref
from typing import Any, Iterable

from ttinspect.virtual import state
from ttinspect.virtual.refusal import refuse

# Tensor methods / torch functions that hand values out of the tensor, or whose result's shape depends on them
VALUE_READS = frozenset({
    "item", "tolist", "numpy", "cpu", "__bool__", "__int__", "__float__", "__index__", "__complex__", "__array__",
    "__format__", "__repr__", "__str__", "nonzero", "argwhere", "masked_select", "unique", "unique_consecutive",
    "bincount", "repeat_interleave", "equal", "allclose", "isclose", "histc", "tensor_split", "split_with_sizes",
})
# `x[mask]` / `x[index]`: an index made of unknown values
INDEXING = frozenset({"__getitem__", "__setitem__", "index_select", "gather", "take", "index_put", "index_put_"})

_unknown: dict[int, tuple[Any, str]] = {}  # id(storage) -> (a weak reference to it, which launch made it unknown)


# What a tensor says of itself, never of its values (and what this module asks): no lookup
METADATA = frozenset({
    "untyped_storage", "storage_offset", "stride", "size", "dim", "ndim", "numel", "nelement", "element_size",
    "data_ptr", "is_contiguous", "shape", "dtype", "device", "is_cuda", "requires_grad", "grad_fn", "is_leaf",
    "__get__", "__len__", "get_device", "_is_view", "layout", "names", "itemsize", "nbytes",
})


def _storage(tensor: Any) -> Any:
    """The tensor's storage, asked of torch itself (a subclass's __torch_function__ would answer it); for a
    tensor on the virtual device (no --values), the storage of the metadata tensor it wraps, which its views
    share and torch's ops on it read."""
    import torch  # as below

    tensor = getattr(tensor, "_meta", tensor)
    try:
        with torch._C.DisableTorchFunctionSubclass():
            return tensor.untyped_storage()
    except (AttributeError, RuntimeError, TypeError, NotImplementedError):
        return None


def _hold(table: dict[int, Any], storage: Any, value: Any) -> None:
    """`table[id(storage)] = (a weak reference to it, value)`, the first time; the entry goes with the storage."""
    key = id(storage)
    if key in table:
        return
    try:
        ref = weakref.ref(storage, lambda _: table.pop(key, None))
    except TypeError:
        return
    table[key] = (ref, value)


def _mark(storage: Any, why: str) -> None:
    _hold(_unknown, storage, why)


_escaped: dict[int, tuple[Any, None]] = {}  # id(storage) -> (a weak reference to it, None): its address was taken


def address_taken(tensor: Any) -> None:
    """The program asked this tensor's `data_ptr()`: a kernel may reach its memory through that address (a table
    of pointers, an integer argument) without being given the tensor."""
    storage = _storage(tensor)
    if storage is not None:
        _hold(_escaped, storage, None)


def written_by_launch(values: Iterable[Any], launch: str, *, anywhere: bool = False) -> None:
    """A recorded launch (`launch`: "kernel K launched at FILE:LINE") may have written these values (the caller
    picks them: capture/as_target.py): each tensor's memory is unknown from now on, and a tensor descriptor's
    base's. `anywhere`: what the kernel writes could not be read from its source (a pointer cast, inline
    assembly...): it may also write through any address the program took (`data_ptr()`), which is unknown too."""
    import torch  # loaded in a process that holds the device with values (torch is imported there)

    for value in values:
        base = getattr(value, "base", None)
        for tensor in (value, base):
            if isinstance(tensor, torch.Tensor):
                storage = _storage(tensor)
                if storage is not None:
                    _mark(storage, launch)
    for ref, _ in list(_escaped.values()) if anywhere else ():
        storage = ref()
        if storage is not None:
            _mark(storage, launch)


def any_unknown() -> bool:
    """Whether any memory is unknown (no launch recorded with --values yet: nothing to look up)."""
    return bool(_unknown)


def why_unknown(tensors: Iterable[Any]) -> str | None:
    """Which launch made one of these tensors' values unknown; None when all are known."""
    import torch  # as above

    for tensor in tensors:
        if isinstance(tensor, torch.Tensor) and _unknown:
            storage = _storage(tensor)
            found = _unknown.get(id(storage)) if storage is not None else None
            if found is not None and found[0]() is storage:
                return found[1]
    return None


def carry(outputs: Any, why: str) -> None:
    """What torch computed from unknown values is unknown, for the same reason."""
    import torch  # as above
    from torch.utils._pytree import tree_leaves  # with torch

    for leaf in tree_leaves(outputs):
        if isinstance(leaf, torch.Tensor):
            storage = _storage(leaf)
            if storage is not None:
                _mark(storage, why)


def refused(asked: str, why: str) -> Exception:
    """The one line for a read of values a recorded launch made unknown."""
    return refuse(f"{asked} of values that {why} may have written", state.current().label,
                  "cannot answer: the kernel was recorded, not run (--run-kernels runs it in Triton's interpreter)")


def reset() -> None:
    """For tests."""
    _unknown.clear()
    _escaped.clear()

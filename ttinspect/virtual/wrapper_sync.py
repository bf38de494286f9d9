"""Keeping a virtual-device tensor (the wrapper the program holds, tensors.py) true to the meta tensor inside it,
against torch's own mechanisms: an in-place op that changes the inner tensor's shape or strides, the program's
own dispatch modes (which must see the device's tensors' ops, never the device's work on meta tensors), the
default device (`torch.set_default_device("cuda")`), and `wrap_triton`'s higher-order op (answered by torch's
eager rule).
Only built with torch already imported: nothing here imports it."""

from __future__ import annotations

import contextlib
import types
from typing import Any


def follow_metadata(torch: types.ModuleType, given: Any) -> None:
    """An in-place op that changes shape or strides (`as_strided_`, `resize_`, `unsqueeze_`, `t_`: torch's
    `clone_input`, as `torch.library.opcheck` runs it) changed the tensor inside: the tensor the program holds
    takes its sizes, strides and offset (set below Python dispatch, on the wrapper alone)."""
    meta = given._meta
    if (given.shape, given.stride(), given.storage_offset()) == (meta.shape, meta.stride(), meta.storage_offset()):
        return
    with torch._C._ExcludeDispatchKeyGuard(torch._C.DispatchKeySet(torch._C.DispatchKey.Python)):
        needed = meta.untyped_storage().nbytes()
        if given.untyped_storage().nbytes() < needed:  # `resize_` grew it: the wrapper's (meta) storage too
            given.untyped_storage().resize_(needed)
        torch.ops.aten.as_strided_.default(given, meta.shape, meta.stride(), meta.storage_offset())


def outside_program_modes(torch: types.ModuleType) -> Any:
    """The program's own TorchDispatchModes off the stack while the device works on meta tensors (opcheck's
    SchemaCheckMode would compare their values); torch's helper, or nothing to take off where it is absent."""
    python_dispatch = getattr(torch.utils, "_python_dispatch", None)
    disable = getattr(python_dispatch, "_disable_current_modes", None)
    return disable() if disable is not None else contextlib.nullcontext()


def default_cuda_device(torch: types.ModuleType, func: Any) -> Any:
    """The device a factory called without `device=` makes its tensor on, where the program made "cuda" the
    default (`torch.set_default_device("cuda")`, model code's): torch's own default-device mode sits at the
    bottom of the mode stack, below the allocation mode, so the factory would reach the CPU build's CUDA backend.
    Read from the mode's own record (torch.get_default_device() makes a tensor to find the index). None for any
    other call or device."""
    try:
        # torch's default-device module: the factories it gives a device, and the device it gives them
        from torch.utils import _device as default_device
    except ImportError:
        return None
    device = getattr(default_device, "CURRENT_DEVICE", None)
    if getattr(device, "type", None) != "cuda" or func not in default_device._device_constructors():
        return None
    return device


def wrap_triton_eager() -> Any:
    """`torch.library.wrap_triton(kernel)[grid](...)` outside a `triton_op` (flash-attn's rotary): torch routes
    the launch through its higher-order op `triton_kernel_wrapper_mutation`, with the tensors nested in its
    `kwargs=` dict. Torch 2.11's dispatch looks for tensor subclasses only among the top-level arguments, finds
    none and refuses ("not supported for the given input types"); 2.13's asks the subclass for a rule. Either
    way the answer is torch's own eager rule: the kernel launched as written, so the launch reaches the
    capture's hooks like any other. Gives (the op, its eager rule), or (None, None) where torch has no
    wrap_triton (before 2.6)."""
    try:
        # torch is imported already (the device is built on it); the op module only where torch has it
        from torch._higher_order_ops import triton_kernel_wrap as wrap
    except ImportError:
        return None, None
    hop = getattr(wrap, "triton_kernel_wrapper_mutation", None)
    dense = getattr(wrap, "triton_kernel_wrapper_mutation_dense", None)
    return (hop, dense) if hop is not None and dense is not None else (None, None)

"""A backward pass over tensors on the virtual device, with the code it calls back seeing the device.

torch hands `Tensor.backward`, `torch.autograd.backward` and `torch.autograd.grad` of a tensor subclass to the
subclass's `__torch_function__`, which answers by calling them again with torch function turned off for
subclasses — and torch's autograd engine carries that state into everything the pass calls back: a custom
`torch.autograd.Function`'s backward (where libraries launch their backward kernels), tensor hooks. There,
`.cuda()`, a `device=` argument or a custom operator would no longer be answered as on the device.

So the pass is asked again in the form torch does not hand to a subclass: the outputs and inputs given as
their graph edges (`torch.autograd.graph.get_gradient_edge`, public API) and every gradient given, made the
way torch makes an implicit one (`ones_like` of a one-element output). Anything else (an output that needs no
gradient, an implicit gradient of a many-element output) is left to torch, which raises its own error."""

from __future__ import annotations

import inspect
import types
from typing import Any, Callable

NOT_MINE = object()  # run_as_edges' answer for a call it does not take: the caller runs it as torch would


def _tuple(value: Any, torch: types.ModuleType) -> tuple:
    if value is None:
        return ()
    if isinstance(value, torch.Tensor) or not isinstance(value, (list, tuple)):
        return (value,)
    return tuple(value)


def _edges(tensors: tuple, torch: types.ModuleType) -> tuple | None:
    """Each tensor's gradient edge (a GradientEdge stays one); None when one has no graph (torch says why)."""
    edge_of = torch.autograd.graph.get_gradient_edge
    found = []
    for tensor in tensors:
        if isinstance(tensor, torch.autograd.graph.GradientEdge):
            found.append(tensor)
        elif isinstance(tensor, torch.Tensor) and tensor.requires_grad:
            found.append(edge_of(tensor))
        else:
            return None
    return tuple(found)


def _gradients(outputs: tuple, given: Any, torch: types.ModuleType) -> tuple | None:
    """The gradients the pass starts from: those given, else torch's implicit one (ones for a one-element
    output); None where torch would raise (it says why)."""
    grads = list(_tuple(given, torch)) or [None] * len(outputs)
    if len(grads) != len(outputs):
        return None
    for position, (output, grad) in enumerate(zip(outputs, grads, strict=True)):
        if grad is None:
            if not isinstance(output, torch.Tensor) or output.numel() != 1:
                return None
            grads[position] = torch.ones_like(output, memory_format=torch.preserve_format)
    return tuple(grads)


def is_pass(func: Callable[..., Any], torch: types.ModuleType) -> bool:
    """Whether `func` runs a backward pass (and so calls code back)."""
    return func is torch.Tensor.backward or func is torch.autograd.backward or func is torch.autograd.grad


def run_as_edges(func: Callable[..., Any], args: tuple, kwargs: dict, torch: types.ModuleType) -> Any:
    """`func` (Tensor.backward, torch.autograd.backward or .grad) run over graph edges; NOT_MINE otherwise."""
    if func is torch.Tensor.backward:
        bound = inspect.signature(torch.Tensor.backward).bind(*args, **kwargs)
        named = dict(bound.arguments)
        named = {"tensors": named.pop("self"), "grad_tensors": named.pop("gradient", None), **named}
        func = torch.autograd.backward
    elif is_pass(func, torch):
        named = dict(inspect.signature(func).bind(*args, **kwargs).arguments)
    else:
        return NOT_MINE
    first, grads_name = ("tensors", "grad_tensors") if func is torch.autograd.backward else ("outputs",
                                                                                           "grad_outputs")
    outputs = _tuple(named[first], torch)
    edges = _edges(outputs, torch)
    grads = _gradients(outputs, named.get(grads_name), torch)
    inputs = named.get("inputs")
    keys = list(inputs) if type(inputs) is dict else None
    input_edges = _edges(_tuple(list(inputs.values()) if isinstance(inputs, dict) else inputs, torch), torch)
    if edges is None or grads is None or input_edges is None or named.get("grad_variables") is not None:
        return NOT_MINE
    named.update({first: edges, grads_name: grads})
    if inputs is not None:
        named["inputs"] = input_edges
    answer = func(**named)
    return dict(zip(keys, answer, strict=True)) if keys is not None and func is torch.autograd.grad else answer

"""A `torch.library.custom_op` called on the device's tensors runs its own Python code — where libraries launch
their Triton kernels — not torch's dispatch of it: on a tensor without values torch would run the op's fake, and
on the CPU (`--run-kernels`) its CUDA code would allocate through torch's real CUDA backend, since torch takes
the allocation mode off its stack while it dispatches (the op's `torch.empty(..., device=x.device)` then reaches
a CUDA build that is not there).

The op's code runs with the mode put back on the stack, and where the op registered an autograd formula
(`register_autograd`), under a `torch.autograd.Function` made from that formula as torch's own
`torch._library.autograd.make_autograd_impl` makes one: `setup_context(ctx, inputs, output)` in the forward,
the registered backward as the backward — so `.backward()` reaches the op's backward and its launches, as on
the GPU. Only built with torch already imported: nothing here imports it at module level."""

from __future__ import annotations

import contextlib
import sys
import types
from typing import Any

from ttinspect.virtual.refusal import VirtualDeviceError, answered_after_all

# Operator namespaces that are torch's own: never a user's custom op.
TORCH_NAMESPACES = ("aten", "prims", "_c10d_functional", "c10d", "profiler", "_quantized", "quantized",
                    "inductor", "higher_order")
_SAID: set[str] = set()  # operators without Python code, already said once
_FAKED: set[str] = set()  # Python custom ops answered by their fake (their code read values), already said once


def definition(func: Any) -> Any:
    """The `CustomOpDef` of a torch function call's function (an OpOverload or its packet: how torch hands a
    custom op's call, through its handle or `torch.ops`, to `__torch_function__`); None for torch's own operators
    and for one defined without Python code (said once: its kernels are not seen)."""
    qualname = getattr(getattr(func, "_schema", None), "name", None) or getattr(func, "_qualified_op_name", None)
    if not isinstance(qualname, str) or qualname.split("::")[0] in TORCH_NAMESPACES:
        return None
    opdef = getattr(sys.modules.get("torch._library.custom_ops"), "OPDEFS", {}).get(qualname)
    if opdef is None and qualname not in _SAID:
        _SAID.add(qualname)
        print(f"ttinspect: note: {qualname} ran as its fake (meta) implementation on the virtual device: "
              "GPU kernels it launches from compiled code are not seen", file=sys.stderr)
    return opdef


def own_code(opdef: Any) -> Any:
    """The op's Python implementation: its CUDA one, else its default one."""
    backends = getattr(opdef, "_backend_fns", {}) or {}
    return backends.get("cuda") or backends.get(None) or getattr(opdef, "_init_fn", None)


def call(torch: types.ModuleType, opdef: Any, args: tuple, kwargs: dict, mode: Any = None) -> Any:
    """The op called as the GPU would run it: its own code, with `mode` (the allocation mode) on torch's stack,
    under the op's autograd formula when one is registered and a tensor given requires grad."""
    code = own_code(opdef)
    on_stack = mode if mode is not None else contextlib.nullcontext()
    backward = getattr(opdef, "_backward_fn", None)
    tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)]
    if backward is None or not torch.is_grad_enabled() or not any(t.requires_grad for t in tensors):
        with on_stack:
            return _own_code_or_fake(opdef, code, args, kwargs, tensors)
    inputs, keyword_only = _as_the_dispatcher_gives(opdef, args, kwargs)
    setup = getattr(opdef, "_setup_context_fn", None)

    def forward(ctx: Any, *given: Any) -> Any:
        with on_stack:  # torch took the mode off its stack while it applies the Function
            output = code(*given, **keyword_only)
        if setup is not None:
            extra = {"keyword_only_inputs": keyword_only} if keyword_only else {}
            setup(ctx=ctx, inputs=given, output=output, **extra)
        return output

    def backward_of(ctx: Any, *grads: Any) -> Any:
        with on_stack:
            return backward(ctx, *grads)

    function: Any = type(f"Autograd_{opdef._name.replace('::', '_')}", (torch.autograd.Function,),
                    {"forward": staticmethod(forward), "backward": staticmethod(backward_of)})
    return function.apply(*inputs)


def _own_code_or_fake(opdef: Any, code: Any, args: tuple, kwargs: dict, tensors: list) -> Any:
    """The op's own code; where it reads values the device does not hold (a routing op's `bincount`) and the op
    registered a fake and mutates nothing, the fake's outputs — their shapes are all a launch after it needs —
    said once per op: what its code would launch after that read is not recorded. Tensors with values
    (`--values`, `--run-kernels`) never take the fake: its outputs hold no values a later read could trust."""
    try:
        return code(*args, **kwargs)
    except VirtualDeviceError as error:
        fake = getattr(opdef, "_abstract_fn", None)
        schema = getattr(getattr(opdef, "_opoverload", None), "_schema", None)
        without_values = tensors and all(getattr(t, "_meta", None) is not None for t in tensors)
        if fake is None or schema is None or schema.is_mutable or not without_values:
            raise
        answered_after_all(error)
        name = f"{getattr(opdef, '_namespace', '?')}::{opdef._name}"
        if name not in _FAKED:
            _FAKED.add(name)
            asked = str(error).split(", which the virtual device")[0]  # "FILE:LINE asks OP of a tensor on ..."
            print(f"ttinspect: note: custom op {name}'s code needs values ({asked}): its registered fake gave its "
                  "outputs; what its code launches after that line is not recorded", file=sys.stderr)
        return fake(*args, **kwargs)


def _as_the_dispatcher_gives(opdef: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """(inputs, keyword-only inputs) as torch's dispatcher hands them to an op's autograd formula: every
    argument but the keyword-only ones positional, in the schema's order, defaults filled."""
    inputs, keyword_only = [], {}
    for at, argument in enumerate(opdef._opoverload._schema.arguments):
        if at < len(args) and not argument.kwarg_only:
            value = args[at]
        elif argument.name in kwargs:
            value = kwargs[argument.name]
        else:
            value = argument.default_value if argument.has_default_value() else None
        if argument.kwarg_only:
            keyword_only[argument.name] = value
        else:
            inputs.append(value)
    return tuple(inputs), keyword_only

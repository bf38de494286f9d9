"""Tensors on the virtual device: what `torch.empty(..., device="cuda")`, `x.cuda()` or `x.to("cuda")` give
while a virtual device is active. Each is a tensor with no values (a meta tensor inside) that reports the
device as cuda:N — its shape, strides, dtype and the ops that make new tensors from them work, as on a
GPU; anything that reads values (item, tolist, printing the values, copying to the CPU, a pointer) is
refused in one line. Only built with torch already imported: nothing here imports it at module level.

Where the program looks (`x.device`, `x.is_cuda`, `x.get_device()`) the tensor answers cuda:N, by
properties of its class, so torch's own Python code asks the same; what torch's C++ sees is the meta device:
its autograd engine asks every tensor's device for a device guard, which a CPU build of torch has only for
devices it was built with, and a custom `torch.autograd.Function` on "cuda" would abort the process there.
Ops go down to torch (autograd records the graph on these tensors, so a backward pass runs through them,
gradients.py) and are computed on the meta tensors inside (`__torch_dispatch__`)."""

from __future__ import annotations

import contextlib
import types
from typing import Any

from ttinspect.virtual import addresses, custom_ops, gradients, state, unknown_values, wrapper_sync
from ttinspect.virtual.refusal import refuse

# Tensor methods that hand out a tensor's memory or values: a meta tensor would answer them with nothing, so
# each is refused outright. data_ptr() is answered with an address of the device's own (addresses.py).
_READS = ("untyped_storage", "storage", "numpy", "tolist", "item", "__array__", "__dlpack__",
          "__dlpack_device__", "cpu", "__bool__", "__int__", "__float__", "__index__", "__complex__")


def _is_cuda(torch: types.ModuleType, device: Any) -> bool:
    if isinstance(device, bool):
        return False
    if isinstance(device, int):  # torch's factories read a bare index as a CUDA device
        return True
    if isinstance(device, str):
        return device.split(":")[0] == "cuda"
    return isinstance(device, torch.device) and device.type == "cuda"


def _index(torch: types.ModuleType, device: Any) -> int:
    if isinstance(device, int):
        return device
    device = torch.device(device)
    return device.index if device.index is not None else torch.cuda.current_device()


def build(torch: types.ModuleType) -> tuple[type, Any]:
    """The tensor class and the torch function mode that makes its tensors, for this torch."""
    from torch.overrides import TorchFunctionMode  # loaded once torch itself is (this module never imports it)
    from torch.utils._pytree import tree_leaves, tree_map  # the same

    tensor: Any = torch.Tensor  # the installed torch's class (typed Any: torch is a parameter here)

    wrap_triton_op, wrap_triton_launch = wrapper_sync.wrap_triton_eager()

    class VirtualTensor(tensor):
        """A tensor on the virtual device: metadata only."""

        _meta: Any
        _index: int

        @staticmethod
        def __new__(cls, meta: Any, index: int, requires_grad: bool = False) -> "VirtualTensor":
            # torch's rule: a view made in inference mode of a normal tensor is a normal tensor (autograd shares
            # its base's version counter): the wrapper is an inference tensor only where the tensor inside is
            normal = torch.is_inference_mode_enabled() and not meta.is_inference()
            with torch.inference_mode(False) if normal else contextlib.nullcontext():
                made = torch.Tensor._make_wrapper_subclass(
                    cls, meta.shape, strides=meta.stride(), storage_offset=meta.storage_offset(), dtype=meta.dtype,
                    device=torch.device("meta"), requires_grad=requires_grad)
            made._meta, made._index = meta, index
            return made

        # where the tensor is, for the program and torch's Python code alike (also where torch function is
        # off for subclasses, inside torch's helpers); torch's C++ sees the meta device (the module's docstring)
        @property
        def device(self) -> Any:
            return torch.device("cuda", self._index)

        @property
        def is_cuda(self) -> bool:
            return True

        @property
        def is_meta(self) -> bool:
            return False

        @property
        def is_cpu(self) -> bool:
            return False

        def get_device(self) -> int:
            return self._index

        def __repr__(self, *args: Any, **kwargs: Any) -> str:
            meta = self._meta
            return f"tensor(..., device='cuda:{self._index}', size={tuple(meta.shape)}, dtype={meta.dtype}) " \
                   "[virtual device: no values]"

        @classmethod
        def __torch_dispatch__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            """An op below autograd: computed on the meta tensors inside; an in-place op or `out=` gives back
            the tensor it was given, anything new is made a tensor of the device."""
            held: dict[int, VirtualTensor] = {}

            def unwrap(value: Any) -> Any:
                if isinstance(value, VirtualTensor):
                    held[id(value._meta)] = value
                    return value._meta
                if isinstance(value, torch.device) and value.type == "cuda":
                    return torch.device("meta")
                return value

            inner_args, inner_kwargs = tree_map(unwrap, tuple(args)), tree_map(unwrap, kwargs or {})
            index = next(iter(held.values()))._index if held else state.selected()
            # what a recorded launch may have written, and what is computed from it: known to be the kernel's
            why = unknown_values.why_unknown(held.values()) if unknown_values.any_unknown() else None
            try:
                out = func(*inner_args, **inner_kwargs)
            except Exception as error:  # meta tensors refuse what needs values: said as the device's refusal
                if why is not None:
                    raise unknown_values.refused(f"{func}", why) from error
                raise refuse(f"{func} of a tensor on the virtual device", state.current().label,
                             f"cannot run ({type(error).__name__}: {str(error).splitlines()[0]})") from error
            if why is not None:
                unknown_values.carry(out, why)
            if getattr(getattr(func, "_schema", None), "is_mutable", True):  # only an in-place op changes shape
                for given in held.values():
                    wrapper_sync.follow_metadata(torch, given)
            return tree_map(lambda v: held[id(v)] if id(v) in held else wrap(v, index), out)

        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            name = getattr(func, "__name__", str(func))
            found = [a for a in (*args, *kwargs.values()) if isinstance(a, VirtualTensor)]
            index = found[0]._index if found else 0
            if func is wrap_triton_op:
                return wrap_triton_launch(*args, **kwargs)
            if name == "data_ptr" and found and args and args[0] is found[0]:
                unknown_values.address_taken(found[0])  # a kernel given the number may write there
                return addresses.data_ptr(found[0]._meta)
            if name in _READS or name == "to" and _leaves(args[1:], kwargs):
                why = unknown_values.why_unknown(found) if unknown_values.any_unknown() else None
                if why is not None:  # a kernel's output: only running the kernel (--run-kernels) answers
                    raise unknown_values.refused(f"Tensor.{name}()", why)
                raise refuse(f"Tensor.{name}() of a tensor on the virtual device", state.current().label,
                             "cannot answer (it holds no values)")
            if name == "cuda" or name == "to" and _moves_to_cuda(args[1:], kwargs):
                # already there; what else it asks (a dtype, a copy) is asked of the tensor without the device
                args, kwargs = _device_replaced(args, kwargs, None)
                if name == "cuda" or _asks_nothing_more(args, kwargs):
                    return args[0]
            opdef = custom_ops.definition(func)
            if opdef is not None:  # a Python custom op: its own code runs (and launches its kernels), not its fake
                return custom_ops.call(torch, opdef, args, kwargs)
            if _is_cuda(torch, kwargs.get("device")):  # `empty_like(x, device=x.device)`: made beside it
                index = _index(torch, kwargs["device"])
                kwargs = {**kwargs, "device": "meta"}
            # a backward pass: run so that what it calls back (a Function's backward) sees the device too
            answer = gradients.run_as_edges(func, args, kwargs, torch)
            if answer is not gradients.NOT_MINE:
                return answer
            with torch._C.DisableTorchFunctionSubclass():
                out = func(*args, **kwargs)
            if not any(isinstance(v, torch.Tensor) for v in tree_leaves(out)):
                return out  # `shape`, `size()`: a torch.Size stays one (pytree would rebuild it as a tuple)
            return tree_map(lambda v: wrap(v, index), out)

    def _device_replaced(args: Any, kwargs: Any, device: Any) -> tuple[tuple, dict]:
        """`.to(...)` / `.cuda(...)`'s arguments with the CUDA device given as `device` (None: "no move"), in
        the place it was given: positionally (`t.to(device, dtype, non_blocking)`, as nn.Module.to calls it)
        or as `device=` (dropped for None) — dropping a positional one would shift a dtype into its place."""
        args = (args[0], *[device if _is_cuda(torch, a) and not isinstance(a, torch.dtype) else a
                           for a in args[1:]])
        named = kwargs.get("device") is not None
        kwargs = {k: v for k, v in kwargs.items() if k != "device"}
        if named and device is not None:
            kwargs["device"] = device
        return args, kwargs

    def _asks_nothing_more(args: Any, kwargs: Any) -> bool:
        """`.to(None, None, False)`: no dtype, no copy, nothing else — the tensor itself, as torch answers."""
        return not kwargs and all(a is None or a is False for a in args[1:])

    def _moves_to_cuda(args: Any, kwargs: Any) -> bool:
        return any(_is_cuda(torch, a) for a in (*args, kwargs.get("device")) if not isinstance(a, torch.dtype))

    def _leaves(args: Any, kwargs: Any) -> bool:
        """`.to(...)` that names a device other than cuda (the CPU, meta)."""
        named = [a for a in (*args, kwargs.get("device")) if isinstance(a, (str, torch.device))]
        return any(not _is_cuda(torch, a) for a in named)

    def wrap(value: Any, index: int, requires_grad: bool = False) -> Any:
        """A meta tensor made a tensor of the device (a factory's keeps its `requires_grad`; below autograd,
        torch sets it)."""
        if isinstance(value, torch.Tensor) and not isinstance(value, VirtualTensor) and value.is_meta:
            state.allocate()  # (or a view of what was): CUDA is initialised, the allocator's counters leave 0
            with wrapper_sync.outside_program_modes(torch):  # the detach is the device's own work, not the program's op
                inner = value.detach()
            return VirtualTensor(inner, index, requires_grad and value.requires_grad)
        return value

    class ValuesOnCpu(tensor):
        """`--run-kernels`: a tensor made on "cuda" is the CPU's, with values (Triton's interpreter reads and
        writes them), and says it is on cuda:N where the program looks (`is_cuda`, `.device`): host code that
        asserts it (a varlen path's `assert q.is_cuda`) runs as on the GPU. Every op on it gives one too
        (torch's default `__torch_function__` keeps the subclass); what leaves the device (`.cpu()`,
        `.to("cpu")`, `.numpy()`) is a plain CPU tensor."""

        @property
        def device(self) -> Any:
            return torch.device("cuda", state.selected())

        @property
        def is_cuda(self) -> bool:
            return True

        @property
        def is_cpu(self) -> bool:
            return False

        def get_device(self) -> int:
            return state.selected()

        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            if func is wrap_triton_op:
                return wrap_triton_launch(*args, **kwargs)
            name = getattr(func, "__name__", "")
            if name == "data_ptr" and args and isinstance(args[0], tensor):
                unknown_values.address_taken(args[0])  # a kernel given the number may write there
            if name == "cuda" or name == "to" and _moves_to_cuda(args[1:], kwargs):
                args, kwargs = _device_replaced(args, kwargs, None)
                if name == "cuda" or _asks_nothing_more(args, kwargs):
                    return args[0]
            if _is_cuda(torch, kwargs.get("device")):  # made beside it: on the CPU, facing cuda
                kwargs = {**kwargs, "device": "cpu"}
            # --values: memory a recorded launch was given holds what the kernel would have written: unknown
            why = unknown_values.why_unknown(tree_leaves((args, kwargs))) \
                if unknown_values.any_unknown() and name not in unknown_values.METADATA else None
            if why is not None:
                index_unknown = name in unknown_values.INDEXING and \
                    unknown_values.why_unknown(tree_leaves((args[1:], kwargs))) is not None
                if name in ("__repr__", "__str__") or name == "__format__" and not (args[1:] and args[1]):
                    # a print, a log line, pytest's traceback: what plain --as prints, and the run goes on
                    shown = args[0]
                    return f"tensor(..., device='cuda:{shown.get_device()}', size={tuple(shown.shape)}, " \
                           f"dtype={shown.dtype}) [unknown: values that {why} may have written]"
                if name in unknown_values.VALUE_READS or index_unknown or name == "to" and _leaves(args[1:], kwargs):
                    raise unknown_values.refused(f"Tensor.{name}()" if name.startswith("_") or name in _READS
                                                 else f"torch {name}()", why)
                out = cls._unknown_computed(func, types, args, kwargs, name)
                unknown_values.carry(out, why)
                return _with_history(out, tree_leaves((args, kwargs)), why)
            return cls._values_computed(func, types, args, kwargs, name)

        @classmethod
        def _unknown_computed(cls, func: Any, types: Any, args: Any, kwargs: Any, name: str) -> Any:
            """An op on values a recorded launch made unknown: its result is unknown too, so it is not computed
            (a serving-size matmul on this CPU would take minutes for nothing) — an in-place op or `out=` gives
            back the tensor it writes; a view is made for real (it computes nothing, and keeps the offset a
            later launch is specialized on); anything else is new memory of the shape, strides and dtype the op
            gives on the meta device."""
            if kwargs.get("out") is not None:
                return kwargs["out"]
            if name.endswith("_") and not name.endswith("__") and args and isinstance(args[0], tensor):
                return args[0]

            def on_meta(value: Any) -> Any:
                if isinstance(value, tensor):
                    return torch.empty_strided(value.shape, value.stride(), dtype=value.dtype, device="meta")
                return value

            try:
                with torch._C.DisableTorchFunctionSubclass():
                    shaped = func(*tree_map(on_meta, tuple(args)), **tree_map(on_meta, kwargs))
            except Exception:  # no meta kernel for it: computed as it is
                return cls._values_computed(func, types, args, kwargs, name)
            if any(isinstance(v, tensor) and v._is_view() for v in tree_leaves(shaped)):
                return cls._values_computed(func, types, args, kwargs, name)

            def made(value: Any) -> Any:
                if isinstance(value, tensor) and value.is_meta:
                    return facing_cuda(torch.empty_strided(value.shape, value.stride(), dtype=value.dtype))
                return value
            return tree_map(made, shaped)

        @classmethod
        def _values_computed(cls, func: Any, types: Any, args: Any, kwargs: Any, name: str) -> Any:
            if name in ("cpu", "numpy", "tolist", "item", "__array__") or name == "to" and _leaves(args[1:], kwargs):
                with torch._C.DisableTorchFunctionSubclass():
                    out = func(*args, **kwargs)
                return tree_map(lambda v: v.as_subclass(torch.Tensor) if isinstance(v, ValuesOnCpu) else v, out)
            return super().__torch_function__(func, types, args, kwargs)

    class UnknownHistory(torch.autograd.Function):  # type: ignore[name-defined]  # torch: a parameter here
        """The autograd history of a result computed by shape only (values a recorded launch made unknown):
        its backward gives each input that needs one a gradient of unknown values, so `.backward()` goes on
        to the program's own backward code (a Function's backward that launches kernels) as on the GPU."""

        @staticmethod
        def forward(ctx: Any, why: str, made: Any, *inputs: Any) -> Any:
            ctx.why, ctx.inputs = why, [(i.shape, i.dtype) if isinstance(i, tensor) else None for i in inputs]
            return made.view_as(made)

        @staticmethod
        def backward(ctx: Any, *grads: Any) -> Any:
            given = [None if shape is None else facing_cuda(torch.empty(shape[0], dtype=shape[1]))
                     for shape in ctx.inputs]
            unknown_values.carry([g for g in given if g is not None], f"the gradient of what {ctx.why}")
            return (None, None, *given)

    def _with_history(out: Any, inputs: list, why: str) -> Any:
        """`out` (made by shape) with a grad_fn where an input needs a gradient and grad mode is on."""
        needing = [i for i in inputs if isinstance(i, tensor) and i.requires_grad]
        if not needing or not torch.is_grad_enabled():
            return out

        def attached(value: Any) -> Any:
            if isinstance(value, tensor) and value.grad_fn is None and not value.requires_grad and \
                    (value.is_floating_point() or value.is_complex()):
                return UnknownHistory.apply(why, value, *needing)
            return value
        return tree_map(attached, out)

    def facing_cuda(value: Any) -> Any:
        if isinstance(value, torch.Tensor) and not isinstance(value, ValuesOnCpu) and value.device.type == "cpu":
            state.allocate()  # a leaf stays one (its .grad is the program's); a result keeps its history
            made = torch.Tensor._make_subclass(ValuesOnCpu, value, value.requires_grad) if value.is_leaf else \
                value.as_subclass(ValuesOnCpu)
            return made
        return value

    def _on_cpu(func: Any, name: str, args: Any, kwargs: Any) -> Any:
        """A torch call that names a CUDA device, made on the CPU instead, its tensors facing cuda."""
        if kwargs.get("device") is not None and _is_cuda(torch, kwargs["device"]):
            made = func(*args, **{**{k: v for k, v in kwargs.items() if k != "pin_memory"}, "device": "cpu"})
            return tree_map(facing_cuda, made)
        if name == "cuda" and args and isinstance(args[0], torch.Tensor):
            return facing_cuda(args[0])
        if name == "to" and args and isinstance(args[0], torch.Tensor) and _moves_to_cuda(args[1:], kwargs):
            args, kwargs = _device_replaced(args, kwargs, None)
            return facing_cuda(args[0].to(*args[1:], **kwargs))
        return func(*args, **kwargs)

    class Allocations(TorchFunctionMode):
        """Any torch function given a CUDA device (a factory's `device=`, `.cuda()`, `.to("cuda")`) makes a
        VirtualTensor instead: the same call on the meta device, wrapped."""

        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            if func is wrap_triton_op:
                return wrap_triton_launch(*args, **kwargs)
            if func is torch.device or getattr(func, "__name__", "") == "_parse_to":  # a device named by
                return func(*args, **kwargs)  # keyword (Module.to parses it): no tensor made on it
            leaves = tree_leaves((args, kwargs))
            on_device = any(isinstance(a, VirtualTensor) for a in leaves)
            # --run-kernels: CPU tensors with values facing cuda, which a pass's code and an op's code make too
            values_here = state.values_on_cpu() and any(isinstance(a, ValuesOnCpu) for a in leaves)
            if (on_device or values_here) and gradients.is_pass(func, torch):
                with self:  # torch took this mode off the stack while it answers: the pass's code needs it on
                    answer = gradients.run_as_edges(func, args, kwargs, torch)
                if answer is not gradients.NOT_MINE:
                    return answer
            opdef = custom_ops.definition(func) if on_device or values_here else None
            if opdef is not None:  # as for a pass: torch took this mode off the stack, and the op's code allocates
                return custom_ops.call(torch, opdef, args, kwargs, mode=self)
            if any(isinstance(a, VirtualTensor) for a in (*args, *kwargs.values())):
                return func(*args, **kwargs)  # the tensor's own __torch_function__ answers
            name = getattr(func, "__name__", "")
            device = kwargs.get("device") or wrapper_sync.default_cuda_device(torch, func)
            kwargs = {**kwargs, "device": device} if device is not None else kwargs
            if state.values_on_cpu():  # --run-kernels: "cuda" is the CPU, values and all
                return _on_cpu(func, name, args, kwargs)
            if device is not None and _is_cuda(torch, device):
                on_meta = {k: v for k, v in kwargs.items() if k != "pin_memory"}
                # made on meta out of sight of the program's own dispatch modes (opcheck's SchemaCheckMode would
                # compare the meta tensor's values): they see the device's tensors' ops, as on the GPU
                with torch._C.DisableTorchFunctionSubclass(), wrapper_sync.outside_program_modes(torch):
                    made = func(*args, **{**on_meta, "device": "meta"})
                return tree_map(lambda v: wrap(v, _index(torch, device), requires_grad=True), made)
            if name == "cuda" and args and isinstance(args[0], torch.Tensor):
                target = args[1] if len(args) > 1 else kwargs.get("device")
                return wrap(args[0].to("meta"), _index(torch, target if target is not None else "cuda"), True)
            if name == "to" and args and isinstance(args[0], torch.Tensor) and _moves_to_cuda(args[1:], kwargs):
                target = next(a for a in (*args[1:], kwargs.get("device")) if _is_cuda(torch, a))
                args, kwargs = _device_replaced(args, kwargs, "meta")
                moved = args[0].to(*args[1:], **kwargs)
                return wrap(moved, _index(torch, target), True)
            return func(*args, **kwargs)

    return VirtualTensor, Allocations

"""What a real launch specializes, as pure data — so an offline compile gives the JIT's PTX byte for byte.

Triton's JIT (`native_specialize_impl`, the same rules in 3.3 to 3.9) looks at each runtime argument:
- an int equal to 1 becomes the constexpr 1 (so a unit stride folds away);
- other ints are i32 (i64 past 2**31 - 1, u64 past 2**63 - 1), marked "D" (tt.divisibility=16) when
  divisible by 16;
- a tensor is a pointer `*<dtype>`, "D" when its data pointer is 16-byte aligned;
- floats are fp32 and bools u1 (i1 on 3.3), never specialized; None is a constexpr.
`do_not_specialize` turns both int rules off for a parameter, `do_not_specialize_on_alignment` only the
divisibility one. Without the divisibility marks Triton emits no cp.async pipelining at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ttinspect.errors import UsageError
from ttinspect.kernel.argument_types import Pointer, Scalar, TensorDesc

DIVISIBILITY = [["tt.divisibility", 16]]

_TORCH_DTYPES = {  # str(torch dtype) -> Triton's short name, for tensors passed to the API
    "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8", "bool": "i1",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5", "uint16": "u16", "uint32": "u32", "uint64": "u64",
}


def torch_dtype_name(short: str) -> str | None:
    """Triton's short name -> the torch dtype's attribute name (fp16 -> float16); None where torch has none."""
    return next((name for name, triton_name in _TORCH_DTYPES.items() if triton_name == short), None)


@dataclass(frozen=True)
class Specialization:
    signature: dict[str, str]  # every parameter in order -> "*fp16" / "i32" / "constexpr" ...
    constexprs: dict[str, Any]  # parameter name -> value (config constexprs and folded 1s)
    attrs: dict[tuple[int], list]  # (index,) -> [["tt.divisibility", 16]] or [] as the JIT passes them

    def describe(self) -> dict[str, str]:
        """A readable form: `a_ptr: *fp16 D`, `stride_ak: =1` — for metadata.json and cache keys."""
        out = {}
        for index, (name, ty) in enumerate(self.signature.items()):
            if ty == "constexpr":
                out[name] = f"={self.constexprs.get(name)!r}"
            else:
                out[name] = ty + (" D" if self.attrs.get((index,)) else "")
        return out


def as_pointer(value: Any) -> Pointer | None:
    if isinstance(value, Pointer):
        return value
    if hasattr(value, "data_ptr") and hasattr(value, "dtype"):  # a torch tensor, without importing torch
        name = str(value.dtype).removeprefix("torch.")
        return Pointer(_TORCH_DTYPES.get(name, name), aligned=value.data_ptr() % 16 == 0)
    return None


def as_descriptor(value: Any) -> TensorDesc | None:
    if isinstance(value, TensorDesc):
        return value
    if hasattr(value, "block_shape") and hasattr(getattr(value, "base", None), "dtype"):
        pointer = as_pointer(value.base)
        layout = getattr(value, "layout", None)  # a Gluon TensorDescriptor's shared layout, as its launcher writes it
        return TensorDesc(pointer.dtype, tuple(value.block_shape), repr(layout) if layout is not None else None) \
            if pointer else None
    return None


def _int_type(value: int) -> str:
    if -(2**31) <= value < 2**31:
        return "i32"
    if value < 2**63:
        return "i64"
    return "u64"


def specialize(params: Sequence[str], args: Mapping[str, Any], constexpr_values: Mapping[str, Any],
               *, do_not_specialize: frozenset[str] = frozenset(),
               do_not_specialize_on_alignment: frozenset[str] = frozenset(),
               bool_type: str = "u1", annotations: Mapping[str, str] | None = None,
               const_pointers: frozenset[str] = frozenset()) -> Specialization:
    """`params`: the kernel's parameter names in order; `args`: runtime arguments by name;
    `constexpr_values`: values for the constexpr parameters."""
    signature: dict[str, str] = {}
    constexprs: dict[str, Any] = {}
    attrs: dict[tuple[int], list] = {}
    missing = [p for p in params if p not in args and p not in constexpr_values]
    if missing:
        raise UsageError(f"no value for kernel parameter(s) {', '.join(missing)}")
    unknown = [name for name in args if name not in params]
    if unknown:
        raise UsageError(f"the kernel has no parameter(s) {', '.join(unknown)}; its parameters: {', '.join(params)}")
    for index, name in enumerate(params):
        if name in constexpr_values:
            signature[name], constexprs[name] = "constexpr", constexpr_values[name]
            continue
        value = args[name]
        annotated = (annotations or {}).get(name, "")
        if annotated and not annotated.startswith("*") and isinstance(value, (int, float, Scalar)):
            # `n: tl.int64`: the JIT takes the type from the annotation; floats and bools it does not
            # specialize at all; integers keep their divisibility (a 1 is not folded: the type is fixed).
            signature[name] = annotated
            if annotated != "u1" and not annotated.startswith(("fp", "bf")) and name not in do_not_specialize:
                divisible = (value.divisible_by_16 if isinstance(value, Scalar)
                             else isinstance(value, int) and value % 16 == 0)
                attrs[(index,)] = DIVISIBILITY if divisible and name not in do_not_specialize_on_alignment else []
            continue
        specialize_int = name not in do_not_specialize
        align = specialize_int and name not in do_not_specialize_on_alignment
        pointer = as_pointer(value)
        descriptor = as_descriptor(value)
        if descriptor is not None:  # the JIT gives descriptors no divisibility attribute
            shape = ", ".join(str(n) for n in descriptor.block_shape)
            layout = f",{descriptor.layout}" if descriptor.layout else ""
            signature[name] = f"tensordesc<{descriptor.dtype}[{shape}]{layout}>"
        elif pointer is not None:
            # a torch.bool tensor is typed as the release types a bool (Triton >= 3.4: u1), as scalars are
            # `x: tl.const` makes a const pointer, typed *k<dtype> by the JIT
            signature[name] = ("*k" if name in const_pointers else "*") + (
                bool_type if pointer.dtype == "i1" and not isinstance(value, Pointer) else pointer.dtype)
            attrs[(index,)] = DIVISIBILITY if pointer.aligned and align else []
        elif isinstance(value, Scalar):  # a type with the launch properties, instead of a value
            if value.equal_to_1 and specialize_int:
                signature[name], constexprs[name] = "constexpr", 1
            else:
                signature[name] = value.dtype
                if specialize_int and not value.dtype.startswith(("fp", "bf")):
                    attrs[(index,)] = DIVISIBILITY if value.divisible_by_16 and align else []
        elif isinstance(value, bool):
            signature[name] = bool_type
        elif isinstance(value, int):
            if value == 1 and specialize_int:
                signature[name], constexprs[name] = "constexpr", 1
            else:
                signature[name] = _int_type(value)
                if specialize_int:  # the JIT passes no attribute at all for do_not_specialize
                    attrs[(index,)] = DIVISIBILITY if value % 16 == 0 and align else []
        elif isinstance(value, float):
            signature[name] = "fp32"
        elif value is None:
            signature[name], constexprs[name] = "constexpr", None
        else:
            raise UsageError(f"cannot pass {type(value).__name__} {value!r} as kernel argument {name!r}")
    return Specialization(signature, constexprs, attrs)

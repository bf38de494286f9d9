"""What each Triton language builtin a kernel calls does to memory, as data: which compute values (a pointer given
to them may pass into their result, nothing is written), which read memory through a pointer, which write
through one, which cast. The tables name triton.language's own builtins — the language the kernel is written
in, not any library — and only those: a builtin not listed here (`tl.inline_asm_elementwise`, a Gluon op, one a
later release adds) is not understood, so the analysis that asks (kernel/written_params.py) counts every
parameter as written. An allow-list, never a deny-list: a new builtin that writes cannot be missed."""

from __future__ import annotations

from typing import Any

# Compute values from values: nothing is read or written through a pointer given to them
COMPUTES = frozenset({
    "abs", "add", "advance", "arange", "argmax", "argmin", "assume", "bitonic_merge", "broadcast", "broadcast_to",
    "cat", "cdiv", "ceil", "clamp", "cos", "cumprod", "cumsum", "debug_barrier", "device_assert", "device_print",
    "div_rn", "dot", "dot_scaled", "erf", "exp", "exp2", "expand_dims", "fdiv", "flip", "floor", "fma", "full",
    "gather", "histogram", "interleave", "join", "log", "log2", "log1p", "make_block_ptr", "make_tensor_descriptor",
    "max", "max_constancy", "max_contiguous", "maximum", "min", "minimum", "mul", "multiple_of", "num_programs",
    "pair_uniform_to_normal", "permute", "philox", "philox_impl", "program_id", "rand", "rand4x", "randint",
    "randint4x", "randn", "randn4x", "range", "ravel", "reduce_or", "reshape", "rsqrt", "sigmoid", "sin", "slice",
    "softmax", "sort", "split", "sqrt", "sqrt_rn", "squeeze", "static_assert", "static_print", "static_range",
    "sub", "sum", "swizzle2d", "tan", "to_tensor", "topk", "trans", "tuple", "uint_to_uniform_float", "umulhi",
    "unsqueeze", "view", "where", "xor_sum", "zeros", "zeros_like", "constexpr", "tanh", "erfc",
    "libdevice",  # libdevice's math (builtin_name's name for all of them); not `extern_elementwise` itself,
    # which calls a function of any bitcode library, one that may store through an address it is given
    "gdc_wait", "gdc_launch_dependents",  # grid dependency control (PDL): orders launches, writes nothing
})
# Read memory through their pointer operand (a descriptor's `load` / `gather` as methods)
READS = frozenset({"load", "load_tensor_descriptor", "atomic_load", "atomic_poll"})
# Write through their pointer operand (atomics also hand back the old values)
WRITES = frozenset({
    "store", "store_tensor_descriptor", "atomic_add", "atomic_and", "atomic_cas", "atomic_max", "atomic_min",
    "atomic_or", "atomic_store", "atomic_xchg", "atomic_xor",
})
CASTS = frozenset({"cast"})  # tl.cast(x, dtype): a pointer type makes a pointer of any integer
POINTER_TYPES = frozenset({"pointer_type"})  # makes the type a cast turns an integer into a pointer with
# Take a @jit combine function and run it on values (the combine function is read too)
COMBINES = frozenset({"reduce", "associative_scan", "map_elementwise"})

# Methods of a tensor, a block pointer or a tensor descriptor (`x.to(...)`, `desc.store(...)`)
# a type's predicates (`x.dtype.is_int_unsigned()`) answer at compile time
DTYPE_PREDICATES = frozenset({
    "is_bf16", "is_block", "is_bool", "is_const", "is_dtype", "is_floating", "is_fp16", "is_fp32", "is_fp64",
    "is_fp8", "is_fp8e4b15", "is_fp8e4b8", "is_fp8e4nv", "is_fp8e5", "is_fp8e5b16", "is_int", "is_int1",
    "is_int16", "is_int32", "is_int64", "is_int8", "is_int_signed", "is_int_unsigned", "is_ptr",
    "is_standard_floating", "is_uint16", "is_uint32", "is_uint64", "is_uint8", "is_void",
})
METHOD_COMPUTES = COMPUTES | DTYPE_PREDICATES | frozenset({"advance", "item"})
METHOD_READS = frozenset({"load", "gather", "atomic_load"})
METHOD_WRITES = frozenset({
    "store", "scatter", "atomic_add", "atomic_and", "atomic_max", "atomic_min", "atomic_or", "atomic_xor",
    "atomic_cas", "atomic_xchg", "atomic_store",
})
METHOD_CASTS = frozenset({"to", "cast"})

# Python's builtins a kernel's body may call at compile time: they compute values
PYTHON_BUILTINS = frozenset({
    "abs", "all", "any", "bool", "divmod", "enumerate", "float", "getattr", "hasattr", "int", "isinstance", "len",
    "list", "max", "min", "print", "range", "reversed", "round", "str", "sum", "tuple", "type", "zip",
})

EXTERN_ELEMENTWISE = "libdevice"  # what builtin_name calls any of libdevice's math functions
LANGUAGE = "triton.language"  # the package whose builtins the tables above describe


def builtin_name(obj: Any) -> str | None:
    """The name of the triton.language builtin `obj` is (a function, a class like `tl.static_range`, or one of
    the language's own @jit helpers like `tl.sum`), or None when it is none of them."""
    function = getattr(obj, "fn", obj)
    module = getattr(function, "__module__", None) or ""
    if module != LANGUAGE and not module.startswith(LANGUAGE + "."):
        return None
    name = getattr(function, "__name__", None)
    if module.endswith(".libdevice"):  # extern elementwise math (libdevice): values in, values out
        return EXTERN_ELEMENTWISE
    return name if isinstance(name, str) else None


def is_jit_function(obj: Any) -> bool:
    """A @triton.jit function whose source can be read (`src`), with its Python function (`fn`)."""
    return isinstance(getattr(obj, "src", None), str) and callable(getattr(obj, "fn", None))


def is_pointer_type(obj: Any) -> bool:
    """A Triton type object that is a pointer type (a global `PTR = tl.pointer_type(...)`)."""
    is_ptr = getattr(obj, "is_ptr", None)
    try:
        return bool(is_ptr()) if callable(is_ptr) else False
    except Exception:  # noqa: BLE001 - a type object of another shape: not known to be a pointer type
        return False


def is_scalar_type(obj: Any) -> bool:
    """A Triton scalar type object (`tl.float16`): a cast to it makes no pointer."""
    is_ptr = getattr(obj, "is_ptr", None)
    if not callable(is_ptr) or not hasattr(obj, "primitive_bitwidth"):
        return False
    try:
        return not is_ptr()
    except Exception:  # noqa: BLE001 - as above
        return False

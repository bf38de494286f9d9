"""Kernel arguments written as text: `--signature` (positional, the syntax of Triton's AOT tool
`triton.tools.compile`) and `--arg NAME=VALUE` (by name). Pure: no triton import.

A signature entry is one of
    *fp16:16   a pointer whose data is 16-byte aligned (what torch allocates)   -> Pointer("fp16")
    *fp32      a pointer with no alignment hint                                -> Pointer("fp32", aligned=False)
    *fp32[16384,4096]   a pointer to a contiguous tensor of that shape (what a heuristic reading numel(),
               .shape, size() or stride() sees; `:16` may follow)    -> Pointer("fp32", shape=(16384, 4096))
    i32:16     an integer divisible by 16                                      -> Scalar("i32", divisible_by_16=True)
    i32:1      an integer equal to 1 (a launch folds it into a constant)       -> Scalar("i32", equal_to_1=True)
    i32, fp32  a scalar of that type, nothing known about its value            -> Scalar("i32")
    64, 0.5, true, tl.float16   a value (a constexpr's, or a runtime scalar's)
    tensordesc<fp16[128, 64]>   a host TMA tensor descriptor moving 128x64 fp16 tiles -> TensorDesc("fp16", (128, 64))
    tensordesc<fp16[128, 64],NVMMASharedLayout(swizzle_byte_width=128, ...)>   a Gluon descriptor, with the
               shared layout its tiles land in, as Gluon's own launcher writes it (repr of the layout)
`--arg` takes the same entries, except that `*fp16` there means a tensor as torch allocates it (aligned):
`--arg` describes a launch, where every fresh tensor is aligned.
Every entry then goes through the JIT's specialization rules (specialize.py), as a real launch would.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from ttinspect.errors import UsageError
from ttinspect.dialects.operands import split_operands
from ttinspect.kernel.overrides import parse_value
from ttinspect.kernel.argument_types import Pointer, Scalar, TensorDesc

# Triton's type names (triton.language's canonical short names).
INT_TYPES = ("i1", "i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64")
FLOAT_TYPES = ("fp16", "bf16", "fp32", "fp64")
FP8_TYPES = ("fp8e4nv", "fp8e5", "fp8e4b15", "fp8e4b8", "fp8e5b16")
POINTER_TYPES = INT_TYPES + FLOAT_TYPES + FP8_TYPES
SCALAR_TYPES = INT_TYPES + FLOAT_TYPES


def parse_entry(text: str, *, where: str, pointer_aligned_by_default: bool = False) -> Any:
    """One entry (see the module docstring) -> Pointer, Scalar or a plain value."""
    entry = text.strip()
    if not entry:
        raise UsageError(f"{where}: empty entry")
    if entry.lower().startswith("tensordesc"):
        return _descriptor(entry, where)
    head, sep, hint = entry.partition(":")
    head, hint = head.strip(), hint.strip()
    if head.startswith("*"):
        dtype, shape = _pointer_head(head, where)
        if not sep:
            return Pointer(dtype, aligned=pointer_aligned_by_default, shape=shape)
        if hint != "16":
            raise UsageError(f"{where}: a pointer takes the hint :16 (16-byte aligned) or none, got {entry!r}")
        return Pointer(dtype, aligned=True, shape=shape)
    if head in SCALAR_TYPES:
        if not sep:
            return Scalar(head)
        if head in FLOAT_TYPES:
            raise UsageError(f"{where}: a float scalar takes no hint, got {entry!r}")
        if hint not in ("1", "16"):
            raise UsageError(f"{where}: only the hints :16 (divisible by 16) and :1 (equal to 1) exist, got {entry!r}")
        return Scalar(head, divisible_by_16=hint == "16", equal_to_1=hint == "1")
    if sep:
        raise UsageError(f"{where}: {entry!r} is neither a type with a hint (i32:16, *fp16:16) nor a value")
    value = parse_value(entry)
    if isinstance(value, str):
        if value.lower() == "none":
            return None
        raise UsageError(f"{where}: {entry!r} is not a type ({', '.join(SCALAR_TYPES)}, *fp16, ...) nor a value "
                         "(an integer, a float, true/false, tl.float16)")
    return value


# *fp32, *fp32[16384,4096], *fp32[] (a tensor of one element and no dimension)
_POINTER_RE = re.compile(r"\*\s*(\w+)\s*(?:\[(?P<shape>[^\]]*)\])?")


def _pointer_head(head: str, where: str) -> tuple[str, tuple[int, ...] | None]:
    """`*fp32[16384,4096]` -> ("fp32", (16384, 4096)); without brackets the shape is None (not given)."""
    m = _POINTER_RE.fullmatch(head)
    if m is None:
        raise UsageError(f"{where}: {head!r} is not a pointer; write *fp16, or with the tensor's shape "
                         "*fp16[4096,4096]")
    if m[1] not in POINTER_TYPES:
        raise UsageError(f"{where}: unknown pointer type {'*' + m[1]!r}; element types: {', '.join(POINTER_TYPES)}")
    if m["shape"] is None:
        return m[1], None
    parts = [part.strip() for part in m["shape"].split(",")] if m["shape"].strip() else []
    if not all(part.isdigit() for part in parts):
        raise UsageError(f"{where}: the shape in {head!r} is not a list of sizes (non-negative integers, "
                         "e.g. *fp16[4096,4096])")
    return m[1], tuple(int(part) for part in parts)


# tensordesc<fp16[128, 64]>   (the JIT's own spelling of a descriptor's type in its signature), and Gluon's
# tensordesc<fp16[128, 64],NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, ...)>
_DESCRIPTOR_RE = re.compile(r"tensordesc\s*<\s*(\w+)\s*\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]\s*"
                            r"(?:,\s*(?P<layout>[A-Za-z]\w*\(.*\))\s*)?>", re.IGNORECASE)


def _descriptor(entry: str, where: str) -> TensorDesc:
    m = _DESCRIPTOR_RE.fullmatch(entry)
    if m is None:
        raise UsageError(f"{where}: {entry!r} is not a descriptor; write tensordesc<fp16[128, 64]> "
                         "(element type and the block one load moves; a Gluon kernel's may add its layout: "
                         "tensordesc<fp16[128, 64],NVMMASharedLayout(...)>)")
    if m[1] not in POINTER_TYPES:
        raise UsageError(f"{where}: unknown descriptor element type {m[1]!r}; "
                         f"element types: {', '.join(POINTER_TYPES)}")
    if m["layout"] is not None:
        _check_layout(m["layout"], where)
    return TensorDesc(m[1], tuple(int(n) for n in m[2].split(",")), m["layout"])


# The shared layouts a Gluon descriptor can carry. Triton evaluates a signature's layout text as Python when
# it compiles, so only a call of one of these with literal arguments is let through.
_SHARED_LAYOUTS = frozenset({"NVMMASharedLayout", "SwizzledSharedLayout", "PaddedSharedLayout",
                             "SharedLinearLayout"})


def _check_layout(text: str, where: str) -> None:
    import ast  # the parser of Python expressions: only for a descriptor written with a layout

    try:
        call = ast.parse(text, mode="eval").body
        ok = isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in _SHARED_LAYOUTS
        for node in [*call.args, *(k.value for k in call.keywords)] if isinstance(call, ast.Call) else []:
            ast.literal_eval(node)
    except (SyntaxError, ValueError, TypeError):
        ok = False
    if not ok:
        raise UsageError(f"{where}: the descriptor's layout {text[:80]!r} is not a shared layout written with literal "
                         f"values ({', '.join(sorted(_SHARED_LAYOUTS))}(...), as Gluon's launcher writes it)")


def parse_signature(text: str) -> list[Any]:
    """`"*fp16:16, i32:16, 64"` -> one parsed entry per kernel parameter, in order."""
    parts = split_operands(text, angles=True)  # commas inside <fp16[128, 64],Layout(...)> do not split
    if not text.strip():
        raise UsageError("--signature is empty; write one entry per kernel parameter, e.g. \"*fp16:16, i32:16, 64\"")
    return [parse_entry(part, where=f"--signature entry {i + 1}") for i, part in enumerate(parts)]


def signature_values(text: str, names: Sequence[str]) -> dict[str, Any]:
    """The values (not the types) a `--signature` gives, by parameter name in the order `names` lists the
    kernel's parameters: `"*fp16:16, 4096, i32:16"` over (x, N, K) -> {"N": 4096}. What a rule reads as the
    launch's value, the same as `--arg N=4096`."""
    entries = parse_signature(text)
    return {name: entry for name, entry in zip(names, entries, strict=False)
            if isinstance(entry, (int, float)) and not isinstance(entry, bool)}


def bind_signature(entries: Sequence[Any], params: Sequence[str], kernel: str,
                   supplied: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Positional entries -> {parameter: entry}; wrong arity names the missing or extra parameters.
    Trailing parameters in `supplied` (given by an autotune config, a heuristic, a default or `--set` for a
    constexpr) may be left out."""
    if len(entries) < len(params) and not set(params[len(entries):]) <= supplied:
        missing = ", ".join(p for p in params[len(entries):] if p not in supplied)
        raise UsageError(f"--signature has {len(entries)} entries but {kernel} has {len(params)} parameters: "
                         f"no entry for {missing}")
    if len(entries) > len(params):
        raise UsageError(f"--signature has {len(entries)} entries but {kernel} has {len(params)} parameters "
                         f"({', '.join(params)}): {len(entries) - len(params)} too many")
    return dict(zip(params[:len(entries)], entries, strict=True))


def parse_arg_items(items: Sequence[str]) -> dict[str, Any]:
    """`--arg NAME=VALUE` items -> {name: entry}."""
    args: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise UsageError(f"--arg takes NAME=VALUE (e.g. --arg a_ptr=*fp16 --arg M=4096), got {item!r}")
        args[name] = parse_entry(value, where=f"--arg {name}", pointer_aligned_by_default=True)
    return args


class TextArgument(str):
    """A string given as an argument that is neither a type nor a value: a `tl.constexpr` parameter's own
    value as a launch passes it (liger's `reduction="mean"`), or a mistake, which `error` says once the
    parameter turns out not to be a constexpr (refs/launch.py's plan)."""

    error: str

    def __new__(cls, text: str, error: str) -> TextArgument:
        made = super().__new__(cls, text)
        made.error = error
        return made

    def __reduce__(self):  # to the sweep's worker processes
        return TextArgument, (str(self), self.error)


def parse_arg_mapping(mapping: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Arguments given as Python data (the API, a file's examples): strings are entries, the rest
    (ints, floats, Pointer, Scalar, torch tensors) are taken as they are. A string that is no entry is kept as
    a TextArgument: whether the parameter is a constexpr is known only with the kernel."""
    out: dict[str, Any] = {}
    for name, value in mapping.items():
        if not isinstance(value, str) or isinstance(value, TextArgument):
            out[name] = value
            continue
        try:
            out[name] = parse_entry(value, where=f"{where} {name}", pointer_aligned_by_default=True)
        except UsageError as error:
            out[name] = TextArgument(value, str(error))
    return out

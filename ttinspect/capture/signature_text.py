"""A compile as the JIT made it (an ASTSource's signature, constants and attributes) -> ttinspect's own
`--signature` text (kernel/arguments.py), so that ttinspect's offline compile of (file:kernel, that text,
the constexprs and options as `--set`, the target) is the same specialization, hence the same PTX.

Each parameter's entry follows from what the JIT decided, not from the values it saw:
    "*fp16" + tt.divisibility=16   -> *fp16:16      "*fp16" without it -> *fp16   (unaligned, or
                                                                                    do_not_specialize)
    "i32" + tt.divisibility=16     -> i32:16        "i32" without it   -> i32
    "constexpr" (a constexpr, or an int 1 / None the JIT folded)       -> its value: 128, 1, true, none,
                                                                          0.5, tl.float16
    "fp32", "u1" (i1 on Triton 3.3)                                    -> fp32, u1
    "tensordesc<fp16[128, 64]>"                                        -> the same text
ttinspect's specialization reads these back as a launch would (an entry `1` folds again, `i32` stays i32
under do_not_specialize), so the JIT's decisions survive whatever the kernel's own rules are.

What the grammar cannot say — a tuple argument, an element type it does not know, an attribute other
than divisibility (AMD's tt.pointer_range), a constexpr whose value is not a literal (a string, a
@triton.jit function, a tuple) with a runtime parameter after it — is named in `problem`; constexprs at
the end whose values are not literals are left out of the text (they travel in the record's `constexprs`,
which ttinspect passes with `--set`). Pure: no triton import (dtype objects are recognised by shape).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ttinspect.errors import UsageError
from ttinspect.kernel.arguments import FLOAT_TYPES, INT_TYPES, POINTER_TYPES, parse_entry

DIVISIBILITY = ("tt.divisibility", 16)
_NOT_GIVEN = object()


@dataclass(frozen=True)
class SignatureText:
    text: str  # the --signature text (possibly shorter than the parameter list: see the module docstring)
    problem: str | None  # why the text does not describe the compile exactly; None: it does


def signature_text(params: Sequence[str], signature: Mapping[str, Any], constants: Mapping[Any, Any],
                   attrs: Mapping[Any, Any], dtype_names: Mapping[str, str]) -> SignatureText:
    """`signature`: parameter -> the JIT's type text; `constants`: (index,) -> value; `attrs`: (index,) ->
    [[name, value], ...]; `dtype_names`: a Triton dtype's short name -> its triton.language attribute
    ("fp16" -> "float16")."""
    entries: list[str | None] = []
    problems: list[str] = []
    for index, name in enumerate(params):
        kind = signature.get(name, _NOT_GIVEN)
        if kind is _NOT_GIVEN:
            problems.append(f"{name}: not in the compile's signature")
            entries.append(None)
            continue
        if not isinstance(kind, str):
            problems.append(f"{name}: a tuple argument ({kind!r}); --signature has no tuples")
            entries.append(None)
            continue
        entry, problem = _entry(name, kind, constants.get((index,), _NOT_GIVEN), _attributes(attrs, index),
                                dtype_names)
        if problem:
            problems.append(problem)
        entries.append(entry)
    nested = sorted(str(key) for key in [*constants, *attrs] if not _top_level(key))
    if nested:
        problems.append(f"values inside tuple arguments ({', '.join(nested)}); --signature has no tuples")
    # Trailing constexprs that are not literals end the text: --set gives them.
    while entries and entries[-1] is None and signature.get(params[len(entries) - 1]) == "constexpr":
        entries.pop()
    middle = [params[i] for i, entry in enumerate(entries) if entry is None and signature.get(params[i]) == "constexpr"]
    if middle:
        problems.append(f"constexpr(s) {', '.join(middle)} before a runtime parameter have values --signature "
                        "cannot write (written as none; --set gives the real value)")
    text = ", ".join(entry if entry is not None else "none" for entry in entries)
    return SignatureText(text, "; ".join(problems) or None)


def _top_level(key: Any) -> bool:
    return isinstance(key, tuple) and len(key) == 1 and isinstance(key[0], int)


def _attributes(attrs: Mapping[Any, Any], index: int) -> list[tuple[Any, ...]]:
    return [tuple(pair) for pair in attrs.get((index,)) or ()]


def _entry(name: str, kind: str, constant: Any, attributes: list[tuple[Any, ...]],
           dtype_names: Mapping[str, str]) -> tuple[str | None, str | None]:
    """One parameter's entry and what keeps it from being exact (None: nothing)."""
    divisible = DIVISIBILITY in attributes
    others = [pair for pair in attributes if pair != DIVISIBILITY]
    problem = f"{name}: attribute(s) {others} that --signature cannot write" if others else None
    if kind == "constexpr":
        if constant is _NOT_GIVEN:
            return None, f"{name}: a constexpr without a value in the compile"
        return literal(constant, dtype_names), problem
    if kind.startswith("*"):
        # a const pointer (`x: tl.const`) is *k<dtype>: the annotation makes it const again when compiled
        element = kind[2:] if kind.startswith("*k") and kind[2:] in POINTER_TYPES else kind[1:]
        kind = "*" + element
        if element not in POINTER_TYPES:
            return None, f"{name}: pointer type {kind!r} is not one --signature knows"
        return kind + (":16" if divisible else ""), problem
    if kind.startswith("tensordesc"):
        try:
            parse_entry(kind, where=name)
        except UsageError:  # a layout (Gluon) or a form the grammar does not take
            return None, f"{name}: descriptor type {kind!r} is not one --signature can write"
        return kind, problem
    if kind in INT_TYPES:
        return kind + (":16" if divisible else ""), problem
    if kind in FLOAT_TYPES:
        return kind, problem
    return None, f"{name}: type {kind!r} is not one --signature knows"


def literal(value: Any, dtype_names: Mapping[str, str]) -> str | None:
    """A constexpr's value as --signature (and --set) write it; None when the grammar has no literal for it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    name = dtype_attribute(value, dtype_names)
    return f"tl.{name}" if name is not None else None


def dtype_attribute(value: Any, dtype_names: Mapping[str, str]) -> str | None:
    """`tl.float16` (a triton.language.dtype) -> "float16"; None for anything else."""
    if not type(value).__module__.startswith("triton.language"):
        return None
    short = getattr(value, "name", None)
    return dtype_names.get(short) if isinstance(short, str) else None


def constexpr_json(value: Any, dtype_names: Mapping[str, str], depth: int = 0) -> Any:
    """A constexpr's value as the capture records it: JSON scalars as they are, a dtype as "tl.float16", a
    tuple as a list, a @triton.jit function as {"jit_function": "module:qualname"}, anything else as
    {"repr": text} (never a guess at a value)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):  # inf and nan as JSON's Infinity / NaN, which Python's json reads back
        return value
    name = dtype_attribute(value, dtype_names)
    if name is not None:
        return f"tl.{name}"
    if isinstance(value, (tuple, list)) and depth < 4:
        return [constexpr_json(item, dtype_names, depth + 1) for item in value]
    inner = getattr(value, "fn", None)
    if callable(inner) and hasattr(inner, "__qualname__") and hasattr(value, "arg_names"):
        return {"jit_function": f"{getattr(inner, '__module__', None)}:{inner.__qualname__}"}
    return {"repr": repr(value)[:200]}

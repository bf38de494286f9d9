"""Arguments a heuristic or a pruner reads that were given only by their type (`--arg K=i32:16`, `*fp16`) or
not at all: the stand-in they see, and what the error then says — the argument the code read, as `--arg`
writes it, and the option that gives its value (`--arg K=4096`), never ttinspect's own objects.

A pointer given by type (`*fp16:16`, `Pointer("fp16")`) still says what a launch's tensor would: its
`element_size()`, its `dtype` (a torch dtype, when torch is importable) and a `data_ptr()` whose alignment is
the one the specialization records (16-byte aligned for `:16`, element-aligned only without it). Given with a
shape (`*fp32[16384,4096]`, `Pointer("fp32", shape=(16384, 4096))`) it answers `numel()`, `.shape`, `size()`,
`stride()`, `dim()` and `is_contiguous()` as a contiguous tensor of that shape would. Its data, and its shape
when none was given, are not known: asking for them is refused in one line naming the argument (and the
syntax that gives a shape)."""

from __future__ import annotations

from typing import Any, Mapping

from ttinspect.kernel.argument_types import Pointer, Scalar, entry_text
from ttinspect.kernel.specialize import torch_dtype_name


class KnownOnlyByType(TypeError):
    """A heuristic or pruner read an argument given only by its type: the user can give it as a value."""

    def __init__(self, argument: str, given: Pointer | Scalar, asked: str = ""):
        super().__init__(f"{argument} was given only as {entry_text(given)}" + (f" (the code read {asked})"
                                                                                 if asked else ""))
        self.argument, self.given, self.asked = argument, given, asked


class KnownByTypeOnly:
    """What a heuristic sees for an argument given only by type (`*fp16`, `i32:16`): anything it asks
    of it fails, rather than answering a wrong question (`"fp16" == torch.float16` is False)."""

    def __init__(self, name: str, value: Pointer | Scalar):
        object.__setattr__(self, "_known", (name, value))

    def _refuse(self, *_: Any, **__: Any):
        raise KnownOnlyByType(*object.__getattribute__(self, "_known"))

    def __getattr__(self, attr: str):
        name, value = object.__getattribute__(self, "_known")
        raise KnownOnlyByType(name, value, f".{attr}")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __int__ = __index__ = __float__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __mod__ = __rmod__ = _refuse
    __floordiv__ = __rfloordiv__ = __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __divmod__ = _refuse
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = __and__ = __rand__ = __or__ = __ror__ = _refuse
    __xor__ = __rxor__ = __neg__ = __pos__ = __abs__ = __invert__ = __round__ = __trunc__ = __floor__ = _refuse
    __ceil__ = __getitem__ = __len__ = __iter__ = __contains__ = _refuse
    # None marks a class unhashable (the data model); typeshed types object.__hash__ as a method only,
    # so mypy needs telling (typeshed's own list/dict do the same).
    __hash__ = None  # type: ignore[assignment]


# bytes per element of Triton's element types (`--signature`'s spelling); i1 is a byte in memory
_ELEMENT_BYTES = {"i1": 1, "u1": 1, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4, "i64": 8, "u64": 8,
                  "fp16": 2, "bf16": 2, "fp32": 4, "fp64": 8}
# A data_ptr() for the stand-in: an address a real allocation could have, 16-byte aligned.
_ALIGNED_ADDRESS = 1 << 24


class PointerKnownByType(KnownByTypeOnly):
    """What a heuristic or pruner sees for a pointer given by type: what a launch's tensor of that element type
    and alignment answers, and nothing more (see the module docstring)."""

    def element_size(self) -> int:
        _, pointer = object.__getattribute__(self, "_known")
        return _ELEMENT_BYTES.get(pointer.dtype, 1)  # the fp8 types: one byte

    def data_ptr(self) -> int:
        _, pointer = object.__getattribute__(self, "_known")
        # `*fp16` in --signature: not 16-byte aligned (the specialization passes no divisibility), so the
        # address is one element past an aligned one, as a view into a tensor would be
        return _ALIGNED_ADDRESS + (0 if pointer.aligned else self.element_size())

    @property
    def dtype(self) -> Any:
        name, pointer = object.__getattribute__(self, "_known")
        try:
            import torch  # only when a heuristic asks for a dtype: torch is heavy and maybe absent
        except ImportError:
            raise KnownOnlyByType(name, pointer, ".dtype, a torch dtype, and torch is not importable here") from None
        found = getattr(torch, torch_dtype_name(pointer.dtype) or "", None)
        if found is None:
            raise KnownOnlyByType(name, pointer, f".dtype, which torch has no dtype for ({pointer.dtype})")
        return found

    def _shape(self, asked: str) -> tuple[int, ...]:
        name, pointer = object.__getattribute__(self, "_known")
        if pointer.shape is None:
            raise KnownOnlyByType(name, pointer, asked)
        try:
            import torch  # a torch.Size, as a tensor's: only when a shape is read (torch is heavy, maybe absent)
        except ImportError:
            return tuple(pointer.shape)
        return torch.Size(pointer.shape)

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape(".shape")

    def size(self, dim: int | None = None) -> Any:
        shape = self._shape(".size")
        return shape if dim is None else shape[dim]

    def stride(self, dim: int | None = None) -> Any:
        shape = self._shape(".stride")
        strides: list[int] = []
        step = 1
        for extent in reversed(shape):  # contiguous: the last dimension moves by one element
            strides.insert(0, step)
            step *= max(extent, 1)
        return tuple(strides) if dim is None else strides[dim]

    def numel(self) -> int:
        count = 1
        for extent in self._shape(".numel"):
            count *= extent
        return count

    nelement = numel

    def dim(self) -> int:
        return len(self._shape(".dim"))

    ndimension = dim

    @property
    def ndim(self) -> int:
        return len(self._shape(".ndim"))

    def is_contiguous(self, *_: Any, **__: Any) -> bool:
        self._shape(".is_contiguous")
        return True

    def storage_offset(self) -> int:
        self._shape(".storage_offset")
        return 0

    def __len__(self) -> int:
        shape = self._shape("len()")
        if not shape:
            raise TypeError("len() of a 0-d tensor")  # as torch says it
        return shape[0]


def stand_ins(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments as the code sees them: those given only by type replaced by their stand-in."""
    return {k: PointerKnownByType(k, v) if isinstance(v, Pointer) else KnownByTypeOnly(k, v)
            if isinstance(v, Scalar) else v for k, v in arguments.items()}


def reads_an_unknown(error: BaseException) -> bool:
    """Whether the code failed on an argument it was not given, or was given only by type (a Pointer, an
    unvalued Scalar; Python's own TypeError names the stand-in where an operator has no hook): the user can
    give it; any other failure is the code's own."""
    return isinstance(error, (KeyError, KnownOnlyByType)) or (
        isinstance(error, TypeError) and any(stand_in.__name__ in str(error)
                                             for stand_in in (KnownByTypeOnly, PointerKnownByType)))


_EXAMPLE_SHAPE = (4096, 4096)  # the shape advice writes: a placeholder for the launch's, in the right syntax


def what_it_read(error: BaseException, arguments: Mapping[str, Any],
                 constexprs: Mapping[str, str | None] | None = None) -> str:
    """For an error `reads_an_unknown` accepts: which argument the code read and how to give its value, in the
    user's terms (`K was given only as i32:16; give its value as a launch passes it: --arg K=4096 ...`).
    `constexprs`: the kernel's constexpr parameters -> the value their advice writes (`True` for a flag; None:
    the kind of value is not known), so a constexpr the code read is asked for with --set, never as a number."""
    if isinstance(error, KnownOnlyByType):
        name, given = error.argument, error.given
        if isinstance(given, Pointer):
            asked = f"; the code read {error.asked}" if error.asked else ""
            if given.shape is not None:
                return (f"{name} was given as {entry_text(given)}{asked}: a pointer given by type and shape "
                        f"answers element_size(), dtype, data_ptr() alignment, numel(), shape, size() and "
                        f"stride() (contiguous), not a tensor's data: from Python, pass a torch tensor for {name}")
            shaped = entry_text(Pointer(given.dtype, shape=_EXAMPLE_SHAPE)).removesuffix(":16")
            example = f"Pointer({given.dtype!r}, shape={_EXAMPLE_SHAPE!r})"
            return (f"{name} was given only as {entry_text(given)}{asked}: a pointer given by type answers "
                    f"element_size(), dtype and data_ptr() alignment, and a tensor's shape when given one: give "
                    f"the launch's (as a contiguous tensor): --arg '{name}={shaped}' (from Python: {example}, or a "
                    f"torch tensor)")
        asked = f" (the code read {error.asked})" if error.asked else ""
        return f"{name} was given only as {entry_text(given)}{asked}; {_give(name, given)}"
    if isinstance(error, KeyError) and error.args and isinstance(error.args[0], str):
        missing = error.args[0]
        if constexprs is not None and missing in constexprs:
            return f"{missing} was not given; {_set(missing, constexprs[missing])}"
        return f"{missing} was not given; {_give(missing, None)}"
    typed = [k for k, v in arguments.items() if isinstance(v, Scalar)]  # Python's own TypeError: which is unsaid
    if not typed:
        return "it reads an argument given only by its type; give the arguments it reads as values"
    return (f"it reads one of {', '.join(typed)}, given only by type; "
            f"{_give(typed[0], arguments[typed[0]]).replace('its value', 'the values')}")


def _give(name: str, given: Scalar | None) -> str:
    example = "1.0" if given is not None and given.dtype.startswith(("fp", "bf")) else "4096"
    return f"give its value as a launch passes it: --arg {name}={example} (from Python: args={{{name!r}: {example}}})"


def _set(name: str, example: str | None) -> str:
    """Advice for a constexpr the code read: --set, with the launch site's kind of value."""
    if example is not None:
        return (f"it is a constexpr the kernel tests as a flag: give the launch's value, --set {name}={example} "
                f"or --set {name}=False (from Python: config={{{name!r}: {example}}})")
    return (f"it is a constexpr: give the value the launch passes, --set {name}=VALUE (a number, True/False or "
            f"tl.float16; from Python: config={{{name!r}: VALUE}})")

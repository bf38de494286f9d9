"""Which parameters a @triton.jit kernel MAY write through, read from its Python source (`ast`; nothing is
compiled: a capture `--as ARCH --values` compiles nothing during the run), so that a launch recorded and not run
makes unknown only the memory the kernel could have written (capture/as_target.py).

Sound, not precise: a parameter is called read-only only when no path could write through it
(kernel/pointer_origins.py follows pointers through one function's body; calls into other @triton.jit functions
are followed through their summaries, each read once). Anything not understood — a builtin
kernel/triton_effects.py does not list (`tl.inline_asm_elementwise`, a Gluon op), a call to a function given as
a parameter, a store through a pointer traced to no parameter, a source that cannot be read, a launch that gives
a parameter an object other than a value, a tensor, a type or a @jit function (the body may call its methods)
— makes every parameter count as written, with the reason. Pointer arithmetic is taken to stay in its
pointer's allocation (as the memory model says). `written` may name parameters that hold no pointer (a size
added to an offset): only the tensors given for them are marked, so they cost nothing."""

from __future__ import annotations

import ast
import inspect
import weakref
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from ttinspect.kernel import triton_effects as effects
from ttinspect.kernel.pointer_origins import EMPTY, UNTRACED, NotUnderstood, Origins, Summary, name_of

MAX_FOLLOWED = 16  # nested @jit calls followed; deeper ones count as not understood


@dataclass(frozen=True)
class ParamWrites:
    """A kernel's parameters it may write through; `unknown`: why every parameter counts as written — and then
    the kernel may also write memory no argument holds (an address loaded from a table or given as an integer,
    cast to a pointer), which only its caller can account for."""
    written: frozenset[str]
    unknown: str | None = None

    def may_write(self, name: str) -> bool:
        return self.unknown is not None or name in self.written


# id(kernel) -> (a weak reference to it, the parameters it calls, {those given: (them, the answer)})
_kernels: dict[int, tuple[Any, frozenset[str], dict[tuple, tuple[tuple, ParamWrites]]]] = {}
_summaries: dict[int, tuple[Any, Summary]] = {}  # id(@jit function) -> (a weak reference, its summary)


def param_writes(kernel: Any, given: Mapping[str, Any] | None = None) -> ParamWrites:
    """The parameters `kernel` (a @triton.jit function) may write through. `given`: the launch's arguments by
    name, of which only those the body calls as functions are read (a constexpr `SCORE_MOD` given a @jit
    function, or None where `if SCORE_MOD is not None:` guards the call). Asked once per kernel object and
    those functions (a program launches one kernel thousands of times)."""
    entry = _kernels.get(id(kernel))
    if entry is None or entry[0]() is not kernel:
        try:
            entry = _kernels[id(kernel)] = (weakref.ref(kernel), _called_params(kernel), {})
        except TypeError:  # not weakly referable: read again next time
            entry = (None, _called_params(kernel), {})
    given_object = _object_given(kernel, given or {})
    if given_object is not None:
        return ParamWrites(EMPTY, given_object)
    functions = {name: given[name] for name in entry[1] if given and name in given}
    key = tuple((name, id(value)) for name, value in sorted(functions.items()))
    if key in entry[2]:
        return entry[2][key][1]
    summary = _summary(kernel, (), functions)
    if summary.unknown is not None:
        answer = ParamWrites(EMPTY, summary.unknown)
    elif UNTRACED in summary.written:
        answer = ParamWrites(EMPTY, f"{name_of(kernel)} writes through a pointer not traced to a parameter "
                                    f"({summary.untraced_at})")
    else:
        answer = ParamWrites(summary.written)
    entry[2][key] = (tuple(functions.values()), answer)  # the functions kept alive: their ids stay theirs
    return answer


def _object_given(kernel: Any, given: Mapping[str, Any]) -> str | None:
    """Why a launch's (or a default's) value for a parameter is an object the analysis cannot see through: a
    namespace or any object other than a number, a string, None, a tensor, a tensor descriptor, a Triton type or
    a @jit function — the body may call its attributes (`OPS.max(out_ptr, v)`), which may be @jit functions
    that store; None when every value is one of those."""
    try:
        defaults = {name: p.default for name, p in inspect.signature(kernel.fn).parameters.items()
                    if p.default is not inspect.Parameter.empty}
    except (AttributeError, TypeError, ValueError):
        defaults = {}
    for name, value in {**defaults, **given}.items():
        if not _plain(value):
            return (f"{name_of(kernel)} is given an object of type {type(value).__name__} for {name}: a method the "
                    f"body calls on it may be a @jit function that writes")
    return None


def _plain(value: Any) -> bool:
    value = getattr(value, "value", value) if type(value).__name__ == "constexpr" else value  # tl.constexpr(v)
    if isinstance(value, (tuple, list)):
        return all(_plain(v) for v in value)
    if value is None or isinstance(value, (bool, int, float, str)) or effects.is_jit_function(value):
        return True
    tensor = getattr(value, "base", value) if not hasattr(value, "data_ptr") else value  # a descriptor: its base
    return callable(getattr(tensor, "data_ptr", None)) or callable(getattr(value, "is_ptr", None))  # or a type


def _called_params(kernel: Any) -> frozenset[str]:
    """The parameters the kernel's body calls (`SCORE_MOD(qk)`)."""
    try:
        definition = ast.parse(kernel.src).body[0]
        params = {a.arg for a in (*definition.args.posonlyargs, *definition.args.args, *definition.args.kwonlyargs)}
    except (SyntaxError, IndexError, AttributeError, TypeError, ValueError):
        return frozenset()
    return frozenset(node.func.id for node in ast.walk(definition)
                     if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in params)


def _summary(function: Any, following: tuple[int, ...], functions: Mapping[str, Any] | None = None) -> Summary:
    """One @jit function's summary, kept per function; with `functions` (a kernel's parameters called as
    functions, as one launch gave them) it is the caller's to keep."""
    entry = _summaries.get(id(function)) if not functions else None
    if entry is not None and entry[0]() is function:
        return entry[1]
    if id(function) in following or len(following) >= MAX_FOLLOWED:
        return Summary(EMPTY, EMPTY, f"{name_of(function)} is called recursively or too deeply to follow")
    try:
        tree = ast.parse(function.src)
        definition = tree.body[0]
        if not isinstance(definition, ast.FunctionDef):
            raise SyntaxError("not one function")
    except (SyntaxError, IndexError, AttributeError, TypeError, ValueError):
        return Summary(EMPTY, EMPTY, f"the source of {name_of(function)} cannot be read")
    flow = Origins(function, definition, lambda helper: _summary(helper, (*following, id(function))), functions)
    try:
        summary = Summary(*flow.run(), None, flow.untraced_at)
    except NotUnderstood as why:
        summary = Summary(EMPTY, EMPTY, str(why))
    if functions:
        return summary
    try:
        _summaries[id(function)] = (weakref.ref(function), summary)
    except TypeError:
        pass
    return summary


def written_values(writes: ParamWrites, bound: dict[str, Any], unbound: Iterable[Any]) -> list[Any]:
    """Which of a launch's values the kernel may have written: those bound to parameters it may write through,
    and every value not bound to a parameter (nothing says what the kernel does with it); all of them where
    the analysis is unsure. A pointer type given for a parameter the kernel writes through (a constexpr the
    body casts to) may point anywhere: every value then."""
    if may_write_anywhere(writes, bound):
        return [*bound.values(), *unbound]
    return [*(v for n, v in bound.items() if n in writes.written), *unbound]


def may_write_anywhere(writes: ParamWrites, bound: Mapping[str, Any]) -> bool:
    """Whether the kernel may write memory it was not given as a tensor: its source was not understood, or a
    parameter it writes through is a pointer type (a constexpr the body casts an address to)."""
    return writes.unknown is not None or any(effects.is_pointer_type(v) for n, v in bound.items()
                                             if n in writes.written)


def reset() -> None:
    """For tests."""
    _kernels.clear()
    _summaries.clear()

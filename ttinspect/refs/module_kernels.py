"""The kernels a loaded module holds that a reference can name (`FILE.py:NAME`, `pkg.mod:NAME`), of every kind
the resolver builds, each described the same way (kind, `def` line, parameters, configs): what `list` shows,
what a file's examples may name, and what an unknown name's error lists.

The kinds, in one table (`KINDS`): Triton's own objects (`@triton.jit`, `@gluon.jit`, `@triton.autotune`,
`@triton.heuristics`) and the kernels of a DSL that generates Triton (Helion's `@helion.kernel`,
refs/helion_kernels.py). A new kind of reference is one more row here: every command that lists or names a
module's kernels then knows it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

from ttinspect.files.source_files import def_line


@dataclass(frozen=True)
class KernelInfo:
    name: str
    kind: str  # jit, gluon, autotune, heuristics, helion (and "autotune, gluon" ...)
    params: tuple[str, ...]
    constexprs: tuple[str, ...]
    line: int | None
    configs: int = 0  # the configs the kernel lists (@triton.autotune's, Helion's configs=[...])
    device_code: bool = True  # a Triton device function (another may call it: kernel/helpers.py tells)


@dataclass(frozen=True)
class Kind:
    """One kind of kernel object: `recognize` says whether an object is one (its kind's name, else None),
    `describe` makes its KernelInfo."""

    recognize: Callable[[Any], str | None]
    describe: Callable[[str, Any], KernelInfo]


def _triton_kind(obj: Any) -> str | None:
    from ttinspect.compile.jit import kernel_kind  # imports triton: only once a user's module is loaded

    kind = kernel_kind(obj)
    return kind if kind in ("jit", "gluon", "autotune", "heuristics") else None


def _describe_triton(name: str, obj: Any) -> KernelInfo:
    from ttinspect.compile.jit import kernel_kind, unwrap  # as above

    fn, autotuner, _ = unwrap(obj)
    kind = kernel_kind(obj)
    assert kind is not None  # unwrap raised for anything but a kernel
    if kind in ("autotune", "heuristics") and kernel_kind(fn) == "gluon":
        kind = f"{kind}, gluon"
    return KernelInfo(name, kind, tuple(fn.arg_names), tuple(p.name for p in fn.params if p.is_constexpr),
                      def_line(fn.fn), len(autotuner.configs) if autotuner is not None else 0)


def is_helion_kernel(obj: Any) -> bool:
    """A kernel of the Helion DSL, told by its class — without importing Helion (a file that defines one
    imported it)."""
    kernel_class = getattr(sys.modules.get("helion"), "Kernel", None)
    return isinstance(kernel_class, type) and isinstance(obj, kernel_class)


def _describe_helion(name: str, kernel: Any) -> KernelInfo:
    """Its Python parameters (tensors and scalars, bound by Helion) and the configs it lists (none: Helion's
    default, or `--config N` of its search space)."""
    function = getattr(kernel, "fn", None)
    return KernelInfo(name, "helion", tuple(kernel.signature.parameters), (),
                      def_line(function) if function is not None else None, len(list(kernel.configs)),
                      device_code=False)


KINDS = (Kind(_triton_kind, _describe_triton),
         Kind(lambda obj: "helion" if is_helion_kernel(obj) else None, _describe_helion))


def kind_of_object(obj: Any) -> str | None:
    """The kind of kernel `obj` is, of any kind a reference can name; None for anything else."""
    return next((kind for row in KINDS if (kind := row.recognize(obj)) is not None), None)


def nameable(module: ModuleType) -> dict[str, Any]:
    """Module-level names bound to a kernel of any kind, in definition order."""
    return {name: obj for name, obj in vars(module).items()
            if not name.startswith("__") and kind_of_object(obj) is not None}


def describe(name: str, obj: Any) -> KernelInfo:
    row = next(row for row in KINDS if row.recognize(obj) is not None)
    return row.describe(name, obj)

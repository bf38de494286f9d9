"""A module imported again in one process (under another target's virtual device, refs/loading.py) runs its
torch.library registrations again, and torch keeps operators process-wide: the second `lib.define` of an
operator, the second `impl` of a kernel, the second decomposition raise where a fresh process would not
(torchao's `intmm_triton` defines `torchao::int_matmul` at import; its `__init__` registers decompositions).

While the user's code is imported, a registration of what was already registered *before this import
began* — by an earlier import of the same code, or of another user file ttinspect loaded in this process,
neither of which a fresh process would have seen — is skipped, and the earlier one stays. A name registered
twice within one import is the code's own bug and raises as it would without ttinspect.

Nothing here imports torch: when torch is not imported yet, nothing can have been registered before.
"""

from __future__ import annotations

import contextlib
import re
import sys
import warnings
from typing import Any, Callable, Iterator

# torch/csrc: "Tried to register an operator (ns::op(Tensor a) -> Tensor) with the same name ... multiple times"
_DUPLICATE_DEFINITION = "with the same name and overload name multiple times"
# torch/library.py: "... there's already a kernel registered from python overriding twice's behavior for ..."
_DUPLICATE_KERNEL = "already a kernel registered from python"
# torch/_library/fake_impl.py: "register_fake(...): the operator ns::op already has a fake impl registered at"
_DUPLICATE_FAKE = "already has a fake impl registered"
# torch/_decomp/__init__.py: "duplicate registrations for torchao.quantize_affine.default"
_DUPLICATE_DECOMPOSITION = "duplicate registrations for"


class _ThisImport:
    """What the import under way registered itself: a repeat of one of these is the code's own."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def guarded(self, original: Callable[..., Any], marker: str, name_of: Callable[..., str]) -> Callable[..., Any]:
        def register(*args: Any, **kwargs: Any) -> Any:
            name = name_of(*args, **kwargs)
            try:
                result = original(*args, **kwargs)
            except RuntimeError as error:
                if marker not in str(error) or name in self.names:
                    raise
                result = None  # registered before this import began: the earlier registration stays
            self.names.add(name)
            return result
        return register


def _definition(lib: Any, schema: str, *_: Any, **__: Any) -> str:
    return f"def {lib.ns}::{schema.split('(')[0]}"


def _kernel(lib: Any, op_name: Any, fn: Any, dispatch_key: str = "", *_: Any, **__: Any) -> str:
    return f"impl {lib.ns}::{getattr(op_name, '__name__', op_name)}/{dispatch_key or lib.dispatch_key}"


def _fake(lib: Any, op_name: Any, *_: Any, **__: Any) -> str:
    return f"fake {lib.ns}::{getattr(op_name, '__name__', op_name)}"


def _decomposition(registry: Any, op: Any, fn: Any) -> str:
    return f"decomposition {id(registry)} {op}"


@contextlib.contextmanager
def repeated_registrations_skipped(own_folders: list[str]) -> Iterator[None]:
    """While the user's code (in `own_folders`) is imported: its torch.library registrations of what was
    registered before this import began are skipped."""
    cls = getattr(sys.modules.get("torch.library"), "Library", None)
    if cls is None:
        yield
        return
    this_import = _ThisImport()
    patched: list[tuple[Any, str, str, Callable[..., str]]] = [(cls, "define", _DUPLICATE_DEFINITION, _definition),
                                           (cls, "impl", _DUPLICATE_KERNEL, _kernel),
                                           (cls, "_register_fake", _DUPLICATE_FAKE, _fake),
                                           (sys.modules.get("torch._decomp"), "_add_op_to_registry",
                                            _DUPLICATE_DECOMPOSITION, _decomposition)]
    saved = []
    for owner, attr, marker, name_of in patched:
        original = getattr(owner, attr, None) if owner is not None else None
        if original is not None:
            saved.append((owner, attr, original))
            setattr(owner, attr, this_import.guarded(original, marker, name_of))
    try:
        with warnings.catch_warnings():
            # torch's note that a kernel replaced one "previously registered", when the new one is the user's
            places = "|".join(re.escape(f) for f in own_folders) or "(?!)"
            warnings.filterwarnings("ignore", message=rf"(?s)Warning only once for all operators.*"
                                                      rf"new kernel: registered at (?:{places})[/:]")
            yield
    finally:
        for owner, attr, original in saved:
            setattr(owner, attr, original)
